import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface TopicsTable {
  id: Generated<number>;
  slug: string;
  kind: string;
  kind_class: ColumnType<'topic', 'topic' | undefined, never>;
  title: string;
  summary: ColumnType<string, string | undefined, string>;
  body: ColumnType<string, string | undefined, string>;
  timeline: ColumnType<string, string | undefined, string>;
  /** Stored as json (not jsonb) so key order survives; written as its JSON text. */
  frontmatter: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  /** Set while the card is archived (a soft delete; migrations/subject/0006_archive.sql). */
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The survivor's slug (same subject) when a merge archived this card. */
  merged_into: ColumnType<string | null, string | null | undefined, string | null>;
}
export type TopicRow = Selectable<TopicsTable>;
export type NewTopicRow = Insertable<TopicsTable>;
export type TopicUpdate = Updateable<TopicsTable>;
