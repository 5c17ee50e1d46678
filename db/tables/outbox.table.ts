import type { ColumnType, Generated, Selectable } from 'kysely';

/** The audit outbox: written by triggers only, append-only. */
export interface OutboxTable {
  id: Generated<number>;
  at: ColumnType<Date, never, never>;
  txid: ColumnType<number, never, never>;
  actor: ColumnType<string, never, never>;
  operation: ColumnType<'INSERT' | 'UPDATE' | 'DELETE', never, never>;
  table_name: ColumnType<string, never, never>;
  row_id: ColumnType<string, never, never>;
  slug: ColumnType<string | null, never, never>;
  reason: ColumnType<string | null, never, never>;
  app_operation: ColumnType<string | null, never, never>;
  detail: ColumnType<unknown, never, never>;
  is_upcast: ColumnType<boolean, never, never>;
  flagged: ColumnType<boolean, never, never>;
}
export type OutboxRow = Selectable<OutboxTable>;
