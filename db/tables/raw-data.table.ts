import type { ColumnType, Generated, Selectable } from 'kysely';

export interface RawDataTable {
  id: Generated<number>;
  topic_id: number;
  source: string;
  /** json: written as its JSON text, read back parsed. */
  data: ColumnType<unknown, string, string>;
  fetched_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type RawDataRow = Selectable<RawDataTable>;
