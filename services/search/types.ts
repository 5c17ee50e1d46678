// Shapes shared by the retrieval modules.

export type Entity = 'topic' | 'episode';

/** A card anywhere this context can read: which subject, topic or episode, which row. */
export interface CardRef {
  subject: string;
  entity: Entity;
  id: number;
}

export function cardKey(ref: CardRef): string {
  return `${ref.subject}:${ref.entity}:${ref.id}`;
}

/** Filters every retrieval path applies identically (keyword and vector). */
export interface SearchFilters {
  kinds: readonly string[];
  /** A topic qualifies when it carries at least one of these tags; episodes have no tags, so a tag filter leaves them out. */
  tags: readonly string[];
  /** Topics by updated_at, episodes by occurred_at. */
  since: Date | undefined;
  until: Date | undefined;
  includeEpisodes: boolean;
  includeTopics: boolean;
}
