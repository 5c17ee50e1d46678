// The shapes of the search-before-add judgement set (see pairs-set.ts), and two small
// helpers that keep the hand-written data files readable.

export type Subject = 'homelab' | 'novel' | 'personal';

/** A card already in the brain when the incoming card arrives. */
export interface ExistingCard {
  subject: Subject;
  slug: string;
  kind: string;
  title: string;
  summary?: string;
  body: string;
}

export type PairLabel = 'same' | 'related' | 'unrelated';

/** A card about to be written, with the judgement a careful human would make. */
export interface IncomingCard {
  /** Unique across the whole set, e.g. 'hl-same-restic'. */
  id: string;
  /** The subject it is written into. */
  subject: Subject;
  kind: string;
  title: string;
  summary?: string;
  body: string;
  /** Slug of the existing card (same subject) this is the SAME thing as. */
  same?: string;
  /** Slugs of existing cards (same subject) it should be linked to with `mentions`. */
  related: string[];
  /** Slugs of existing cards that look similar but are different things: hard negatives. */
  unrelated: string[];
  /** What makes it hard: 'reworded', 'abbreviation', 'nickname', 'hard-negative', ... */
  style: string;
}

/** One labelled pair, derived from an incoming card. */
export interface LabelledPair {
  incoming: string;
  subject: Subject;
  existing: string;
  label: PairLabel;
  style: string;
}

/** A card builder for one subject: the kind is the slug's first segment. */
export function existingIn(subject: Subject) {
  return (slug: string, title: string, body: string, summary?: string): ExistingCard => {
    const kind = slug.split('/')[0] ?? '';
    return summary === undefined ? { subject, slug, kind, title, body } : { subject, slug, kind, title, summary, body };
  };
}

export interface IncomingOptions {
  same?: string;
  rel?: string[];
  un?: string[];
  style: string;
  summary?: string;
}

/** An incoming-card builder for one subject. */
export function incomingIn(subject: Subject) {
  return (id: string, kind: string, title: string, body: string, o: IncomingOptions): IncomingCard => {
    const card: IncomingCard = { id, subject, kind, title, body, related: o.rel ?? [], unrelated: o.un ?? [], style: o.style };
    if (o.summary !== undefined) card.summary = o.summary;
    if (o.same !== undefined) card.same = o.same;
    return card;
  };
}

/** Every labelled pair the incoming cards imply: one per same, per related slug, per unrelated slug. */
export function pairsOf(incoming: readonly IncomingCard[]): LabelledPair[] {
  const pairs: LabelledPair[] = [];
  for (const c of incoming) {
    if (c.same !== undefined) pairs.push({ incoming: c.id, subject: c.subject, existing: c.same, label: 'same', style: c.style });
    for (const s of c.related) pairs.push({ incoming: c.id, subject: c.subject, existing: s, label: 'related', style: c.style });
    for (const s of c.unrelated) pairs.push({ incoming: c.id, subject: c.subject, existing: s, label: 'unrelated', style: c.style });
  }
  return pairs;
}
