import type { ColumnType } from 'kysely';

export interface ProposalsTable {
  id: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  expires_at: ColumnType<Date, Date, Date>;
  status: ColumnType<'pending' | 'committed' | 'declined' | 'expired', 'pending' | undefined, 'committed' | 'declined' | 'expired'>;
  asked_human: ColumnType<boolean, boolean | undefined, boolean>;
  /** jsonb: written as JSON text. */
  items: ColumnType<unknown, string, string>;
  outcome: ColumnType<unknown, string | undefined, string>;
  settled_at: ColumnType<Date | null, never, Date>;
}
