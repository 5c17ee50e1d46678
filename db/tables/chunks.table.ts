import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Embedded chunks of a subject's cards (migrations/subject/0003, only where pgvector is).
 * The vector is written as pgvector's text form ('[0.1,0.2,...]') and never read back
 * whole: queries compare it inside Postgres.
 */
export interface ChunksTable {
  id: Generated<number>;
  topic_id: number | null;
  episode_id: number | null;
  chunk_index: number;
  heading: string | null;
  text: string;
  model: string;
  dims: number;
  content_hash: string;
  embedding: ColumnType<string, string, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type ChunkRow = Selectable<ChunksTable>;
