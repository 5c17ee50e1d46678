// Search before add's judgement: is an existing card the same thing as the one being written
// (update it), possibly the same (write the new card, flag the match for a person), something
// the new card should link to, or neither. One function weighs a pair of cards, so remember and
// propose decide alike, and lint weighs pairs of stored cards with it (curation/lint-judgement.ts).
//
// The evidence is lexical and semantic, each piece on 0-1:
//   - titleDice, titleContainment: the titles' lexemes ("Sam" is contained in "Sam, the neighbour");
//   - titleInText: one card's title words found in the other card's text (the NAS card's body
//     names the "Synology DS920+" the new card is titled after);
//   - textDice: all lexemes of both;
//   - cosine: the new text against the card's nearest chunk, on the model's scale;
//   - sameKind, slugEqual.
// Two logistic models of them, fitted on the labelled set in bench/judgement/ per embedder
// (calibration.ts), give P(same) and P(link-worthy). A card of another kind is never updated
// (a tool and a person are never the same card), only flagged; one of the same kind with the
// same title words always is, and so is the card whose slug is asked for.
import type { JudgementModel } from './calibration.js';
import { dice } from './similarity.js';

export interface PairEvidence {
  titleDice: number;
  titleContainment: number;
  titleInText: number;
  textDice: number;
  /** Cosine on the model's scale (0 at unrelated, 1 at related); null without vectors. */
  cosine: number | null;
  sameKind: boolean;
  slugEqual: boolean;
}

export interface CardLexemeSets {
  kind: string;
  titleLexemes: ReadonlySet<string>;
  allLexemes: ReadonlySet<string>;
}

/** |A ∩ B| / min(|A|, |B|): 1 when one set lies inside the other. */
export function containment(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return common / Math.min(a.size, b.size);
}

/** Share of `title` found in `text`. */
function covered(title: ReadonlySet<string>, text: ReadonlySet<string>): number {
  if (title.size === 0) return 0;
  let n = 0;
  for (const x of title) if (text.has(x)) n++;
  return n / title.size;
}

export function pairEvidence(incoming: CardLexemeSets, existing: CardLexemeSets, rawCosine: number | undefined, slugEqual: boolean, model: JudgementModel): PairEvidence {
  return {
    titleDice: dice(incoming.titleLexemes, existing.titleLexemes),
    titleContainment: containment(incoming.titleLexemes, existing.titleLexemes),
    titleInText: Math.max(covered(incoming.titleLexemes, existing.allLexemes), covered(existing.titleLexemes, incoming.allLexemes)),
    textDice: dice(incoming.allLexemes, existing.allLexemes),
    cosine: rawCosine === undefined ? null : (rawCosine - model.scale.unrelated) / (model.scale.related - model.scale.unrelated),
    sameKind: incoming.kind === existing.kind,
    slugEqual,
  };
}

/** The feature vector the models weigh (bench/judgement/duplicates.ts fits them on the same one). */
export function features(e: PairEvidence): number[] {
  const kind = e.sameKind ? 1 : 0;
  return [e.titleDice, e.titleContainment, e.titleInText, e.textDice, e.cosine ?? 0, e.cosine === null ? 1 : 0, kind, e.slugEqual ? 1 : 0];
}

export const FEATURE_NAMES = ['titleDice', 'titleContainment', 'titleInText', 'textDice', 'cosine', 'noVector', 'sameKind', 'slugEqual'] as const;

function logistic(weights: readonly number[], x: readonly number[]): number {
  const z = weights[0]! + x.reduce((s, xi, i) => s + xi * weights[i + 1]!, 0);
  return 1 / (1 + Math.exp(-z));
}

export type Verdict = 'same' | 'possible-duplicate' | 'related' | 'weak';

export interface PairJudgement {
  pSame: number;
  pLink: number;
  verdict: Verdict;
  /** Worth a `mentions` link, whatever the verdict: P(link) clears its threshold and the cards share a word. */
  linkable: boolean;
}

export function judgePair(e: PairEvidence, model: JudgementModel): PairJudgement {
  // The same slug, or the same title words and kind: the same card, whatever the text says (the
  // labelled set has few such pairs, so the models cannot be asked). A slug names one card.
  if (e.slugEqual || (e.sameKind && e.titleDice === 1)) return { pSame: 1, pLink: 1, verdict: 'same', linkable: true };
  const x = features(e);
  const pSame = logistic(model.same, x);
  const pLink = logistic(model.link, x);
  // Links need a word in common: two cards merely near in meaning ("restic" and "the VLAN plan",
  // both homelab) are not linked on the embedding alone.
  const lexical = e.titleInText > 0 || e.titleContainment > 0;
  const linkable = pLink >= model.linkAt && lexical;
  // A card of another kind is flagged only where one of the same kind would be updated: "Keep
  // pgvector on the Postgres server" (a decision) shares most words with the server's card.
  const flag = e.sameKind ? pSame >= model.flagAt : pSame >= model.updateAt;
  const verdict: Verdict = pSame >= model.updateAt && e.sameKind ? 'same' : flag ? 'possible-duplicate' : linkable ? 'related' : 'weak';
  return { pSame, pLink, verdict, linkable };
}
