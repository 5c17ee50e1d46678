import type { ColumnType, Generated, Selectable } from 'kysely';

export type LinkRelation = 'mentions' | 'relates-to' | 'supersedes' | 'upcast-of' | 'derived-from';

export interface LinksTable {
  id: Generated<number>;
  from_topic_id: number;
  to_subject: string;
  to_slug: string;
  relation: ColumnType<LinkRelation, LinkRelation | undefined, LinkRelation>;
  context: ColumnType<string, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type LinkRow = Selectable<LinksTable>;
