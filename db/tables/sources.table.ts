import type { ColumnType, Generated, Selectable } from 'kysely';

export interface SourcesTable {
  id: Generated<number>;
  topic_id: number | null;
  episode_id: number | null;
  document_id: number | null;
  uri: string | null;
  locator: ColumnType<string, string | undefined, string>;
  quote: ColumnType<string, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type SourceRow = Selectable<SourcesTable>;
