// A hand-written labelled set for search before add: for each incoming card, which
// existing card (if any) is the SAME thing, which it should be linked to (RELATED), and
// which look similar but are different things (UNRELATED, hard negatives).
//
// Three subjects, kept apart: nothing in one subject's cards names another's specifics.
// Validate with bench/judgement/check-set.ts.
import { EXISTING_HOMELAB } from './existing-homelab.js';
import { EXISTING_NOVEL } from './existing-novel.js';
import { EXISTING_PERSONAL } from './existing-personal.js';
import { INCOMING_HOMELAB } from './pairs-homelab.js';
import { INCOMING_NOVEL } from './pairs-novel.js';
import { INCOMING_PERSONAL } from './pairs-personal.js';
import { pairsOf, type ExistingCard, type IncomingCard, type LabelledPair } from './types.js';

export type { ExistingCard, IncomingCard, LabelledPair, PairLabel, Subject } from './types.js';
export { pairsOf } from './types.js';

export const EXISTING: ExistingCard[] = [...EXISTING_HOMELAB, ...EXISTING_NOVEL, ...EXISTING_PERSONAL];

export const INCOMING: IncomingCard[] = [...INCOMING_HOMELAB, ...INCOMING_NOVEL, ...INCOMING_PERSONAL];

/** Every labelled pair: one per same, one per related slug, one per unrelated slug. */
export const PAIRS: LabelledPair[] = pairsOf(INCOMING);
