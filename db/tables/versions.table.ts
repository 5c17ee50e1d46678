import type { ColumnType, Generated, Selectable } from 'kysely';

/** Written by triggers only (brain.keep_version); read for history and restore. */
export interface VersionsTable {
  id: Generated<number>;
  entity: 'topic' | 'episode';
  entity_id: number;
  operation: 'UPDATE' | 'DELETE';
  row_data: ColumnType<Record<string, unknown>, never, never>;
  frontmatter: ColumnType<Record<string, unknown> | null, never, never>;
  changed_by: ColumnType<string, never, never>;
  changed_at: ColumnType<Date, never, never>;
  reason: ColumnType<string | null, never, never>;
}
export type VersionRow = Selectable<VersionsTable>;
