import type { ColumnType, Generated, Selectable } from 'kysely';

export interface DocumentsTable {
  id: Generated<number>;
  uri: string | null;
  title: ColumnType<string, string | undefined, string>;
  media_type: ColumnType<string, string | undefined, string>;
  content: string;
  sha256: string;
  fetched_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type DocumentRow = Selectable<DocumentsTable>;
