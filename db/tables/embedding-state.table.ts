import type { ColumnType, Selectable } from 'kysely';

/** Which version of a card (its updated_at) is embedded with which model. */
export interface EmbeddingStateTable {
  topic_id: number | null;
  episode_id: number | null;
  model: string;
  dims: number;
  source_updated_at: ColumnType<Date, Date | string, Date | string>;
  content_hash: string;
  chunk_count: number;
  embedded_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type EmbeddingStateRow = Selectable<EmbeddingStateTable>;
