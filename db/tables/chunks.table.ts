import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Embedded chunks of a subject's cards (migrations/subject/0003, only where pgvector is).
 * The vector is written in pgvector's binary form (vectorParam in services/search/vectors.ts)
 * and never read back whole: queries compare it inside Postgres.
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
  embedding: ColumnType<string, Uint8Array, Uint8Array>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type ChunkRow = Selectable<ChunksTable>;
