// Types of the labelled question set (see question-set.ts).
export type SetSubject = 'homelab' | 'novel' | 'personal';

export interface SetCard {
  /** Unique across the set; for topics the slug (e.g. 'tool/restic'), for episodes 'ep/0412'. */
  key: string;
  subject: SetSubject;
  entity: 'topic' | 'episode';
  /** A kind from kinds.yaml of the right class. */
  kind: string;
  title: string;
  summary?: string;
  body: string;
  /** Episodes only: ISO date-time. */
  occurredAt?: string;
  /** Lowercase, [a-z0-9-]. */
  tags?: string[];
}

export type QuestionStyle =
  | 'keyword'
  | 'question'
  | 'paraphrase'
  | 'conversational'
  | 'entity'
  | 'quoted'
  | 'kind'
  | 'recent'
  | 'nonsense';

export interface SetQuestion {
  id: string;
  /** The subject the search runs as. */
  from: SetSubject;
  query: string;
  /** Keys of the cards that answer it (readable from `from`); empty for nonsense. */
  relevant: string[];
  style: QuestionStyle;
  /** Only documents the kind a 'kind' question asks for; never meant as a filter. */
  kinds?: string[];
}

/** A hand-written topic before it becomes a SetCard. */
export type TopicRow = [slug: string, kind: string, title: string, body: string, tags?: string[]];

/**
 * A hand-written episode before it gets its key: `id` is internal (questions name it as '@id'),
 * the key 'ep/NNNN' is assigned once every episode is sorted by date.
 */
export interface EpisodeDraft {
  id: string;
  subject: SetSubject;
  kind: string;
  occurredAt: string;
  title: string;
  body: string;
  tags?: string[];
}

/** The question as written: relevant entries are topic slugs or '@id' of an episode draft or fact. */
export type QuestionRow = [id: string, from: SetSubject, style: QuestionStyle, query: string, relevant: string[], kinds?: string[]];

export const topic = (subject: SetSubject) => (rows: TopicRow[]): SetCard[] =>
  rows.map(([key, kind, title, body, tags]) => ({ key, subject, entity: 'topic', kind, title, body, ...(tags ? { tags } : {}) }));
