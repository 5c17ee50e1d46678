import type { ColumnType, Generated, Selectable } from 'kysely';

/** bytea: written as a Buffer; read back as a Buffer (pg) or a Uint8Array (PGlite). */
type Bytes = ColumnType<Uint8Array, Buffer | Uint8Array, Buffer | Uint8Array>;

/** One imported GBrain page, keyed by its topic (migrations/subject/0004_gbrain.sql). */
export interface GbrainPagesTable {
  topic_id: number;
  rel_path: string;
  original: Bytes;
  sha256: string;
  fingerprint: string;
  /** json: written as its JSON text, read back parsed. */
  imported: ColumnType<unknown, string, string>;
  imported_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type GbrainPageRow = Selectable<GbrainPagesTable>;

/** Special files (index.md, log.md, schema.md, README.md) and .raw/ sidecars, kept verbatim. */
export interface GbrainFilesTable {
  id: Generated<number>;
  rel_path: string;
  role: 'special' | 'sidecar';
  topic_id: number | null;
  bytes: Bytes;
  sha256: string;
  fingerprint: string | null;
  imported_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type GbrainFileRow = Selectable<GbrainFilesTable>;

/** GBrain's ingest_log: log.md entries and `brain ingest` records. */
export interface GbrainIngestLogTable {
  id: Generated<number>;
  origin: 'log.md' | 'cli';
  logged_at: ColumnType<Date, Date | string, Date | string>;
  date_only: ColumnType<boolean, boolean | undefined, boolean>;
  source_type: string;
  source_ref: ColumnType<string, string | undefined, string>;
  pages_updated: ColumnType<unknown, string | undefined, string>;
  summary: ColumnType<string, string | undefined, string>;
  detail: ColumnType<string, string | undefined, string>;
  document_id: number | null;
  line: number | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}
export type GbrainIngestLogRow = Selectable<GbrainIngestLogTable>;
