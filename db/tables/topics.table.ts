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
}
export type TopicRow = Selectable<TopicsTable>;
export type NewTopicRow = Insertable<TopicsTable>;
export type TopicUpdate = Updateable<TopicsTable>;
