// The backup file: gzip'd JSON lines. Line 1 is a header; every other line holds rows of
// one table as row_to_json text, which keeps json key order, timestamps to the
// microsecond and every other value exactly as Postgres prints it.
export const BACKUP_FORMAT = 'claude-brain-backup';
export const BACKUP_VERSION = 1;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  createdAt: string;
  subjects: string[];
  /** Applied migration numbers per scope, so a restore knows the shape it needs. */
  migrations: Record<string, number[]>;
}

export interface TableChunk {
  table: string;
  rows: unknown[];
}

export function backupFileName(now = new Date()): string {
  return `brain-backup-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')}.jsonl.gz`;
}
