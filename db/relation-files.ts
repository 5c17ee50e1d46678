// Damage Postgres cannot see by itself: a truncated or missing table file reads as an empty
// table, with no error (`brain stats` said "Cards 0" and exit 0). Two checks, when the
// embedded brain opens (a server's files are its DBA's):
// - the clean-close snapshot: each relation file's size, written when the brain closes
//   cleanly and removed when it opens. Nothing may shrink a file while the brain is closed,
//   so a file smaller than its snapshot, or gone, is damage. After a crash there is no snapshot.
//   It also keeps each file's recorded page count, so a file already short when the brain
//   closed is caught from the snapshot too, and an open after a clean close needs no query
//   of the second check (it costs a second or more of the start at 100k cards).
// - the database's own record (pg_class.relpages, set by ANALYZE, VACUUM and CREATE INDEX; a
//   relation only shrinks through operations that update it): a file shorter than it is damage.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { writeFileAtomically } from './data-dir.js';

/** In the data directory, beside the marker; Postgres ignores files it does not know there. */
export const SNAPSHOT_FILE = 'claude-brain-files.json';

interface Snapshot {
  /** 2 adds `pages` and `blockSize`; a format-1 snapshot still proves what it can. */
  format: 1 | 2;
  closedAt: string;
  blockSize?: number;
  /** Data-directory-relative path -> the relation's name, its size and its recorded page count (pg_class.relpages) at close. */
  files: Record<string, { name: string; bytes: number; pages?: number }>;
}

export interface ShortRelation {
  schema: string;
  name: string;
  kind: 'table' | 'index' | 'toast table' | 'materialized view';
  /** Relative to the data directory, e.g. base/5/16386. */
  path: string;
  recordedPages: number;
  bytes: number;
}

const KINDS: Record<string, ShortRelation['kind']> = { r: 'table', i: 'index', t: 'toast table', m: 'materialized view' };

export async function shortRelations(pg: PGlite): Promise<ShortRelation[]> {
  const { rows } = await pg.query<{ schema: string; name: string; relkind: string; path: string; pages: number; bytes: number }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind, pg_relation_filepath(c.oid) AS path,
            c.relpages AS pages, pg_relation_size(c.oid)::float8 AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relpersistence = 'p' AND c.relkind IN ('r', 'i', 't', 'm') AND c.relpages > 0
        AND pg_relation_size(c.oid) < c.relpages::bigint * current_setting('block_size')::int
      ORDER BY n.nspname, c.relname`,
  );
  return rows.map((r) => ({ schema: r.schema, name: r.name, kind: KINDS[r.relkind] ?? 'table', path: r.path, recordedPages: Number(r.pages), bytes: Number(r.bytes) }));
}

/** A relation file the snapshot records: its path under the data directory, the relation and its recorded page count. */
export interface RelationFile {
  name: string;
  path: string;
  pages: number;
}

/**
 * Every relation file, with its recorded page count, as the brain is about to close: one scan
 * of pg_class. Their sizes are read afterwards from the files (writeSnapshot): asking Postgres
 * (pg_relation_size) opens every relation through PGlite's file-system layer, a second or more
 * of every close even for a brain of a few hundred cards (all the catalogs count).
 */
export async function listRelationFiles(pg: PGlite): Promise<{ blockSize: number; files: RelationFile[] }> {
  const { rows } = await pg.query<{ name: string; path: string; pages: number; block: number }>(
    `SELECT n.nspname || '.' || c.relname AS name, pg_relation_filepath(c.oid) AS path,
            greatest(c.relpages, 0) AS pages, current_setting('block_size')::int AS block
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relpersistence = 'p' AND c.relkind IN ('r', 'i', 't', 'm') AND pg_relation_filepath(c.oid) IS NOT NULL`,
  );
  return { blockSize: Number(rows[0]?.block ?? 8192), files: rows.map((r) => ({ name: r.name, path: r.path, pages: Number(r.pages) })) };
}

/**
 * Records every relation file's size, once PGlite has closed cleanly (so every write is in the
 * files); `relations` is what listRelationFiles read before the close. The size is the file's
 * own, the one checkSinceClose compares with.
 */
export function writeSnapshot(dataDir: string, relations: { blockSize: number; files: readonly RelationFile[] }): void {
  const snapshot: Snapshot = { format: 2, closedAt: new Date().toISOString(), blockSize: relations.blockSize, files: {} };
  for (const r of relations.files) {
    let bytes = 0; // gone already: the next open says so, as pg_relation_size's 0 did
    try {
      bytes = statSync(join(dataDir, r.path)).size;
    } catch {
      /* recorded as 0 bytes */
    }
    snapshot.files[r.path] = { name: r.name, bytes, pages: r.pages };
  }
  writeFileAtomically(join(dataDir, SNAPSHOT_FILE), JSON.stringify(snapshot));
}

export interface CloseCheck {
  /** Path -> what is wrong: files smaller than at the last clean close, or gone, or shorter than their recorded pages. */
  problems: Map<string, string>;
  /**
   * The snapshot also held every file's recorded page count: with no problem, no file is
   * shorter than the database records, and shortFiles need not run.
   */
  coversRecordedPages: boolean;
  /** What the snapshot listed, when it covers every page: a one-shot command's close records these again (db/open.ts). */
  relations?: { blockSize: number; files: RelationFile[] };
  /**
   * The listed files' size now, in bytes, when there was a snapshot: what sizes the page cache
   * (db/embedded.ts, cacheSizeForBytes), without walking the data directory a second time.
   */
  relationBytes?: number;
}

/** Checks the files against the last clean close; nothing to check when there is no snapshot (first open, or after a crash). */
export function checkSinceClose(dataDir: string): CloseCheck {
  const file = join(dataDir, SNAPSHOT_FILE);
  const problems = new Map<string, string>();
  if (!existsSync(file)) return { problems, coversRecordedPages: false };
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  } catch {
    return { problems, coversRecordedPages: false }; // a damaged snapshot proves nothing about the data
  }
  const block = snapshot.blockSize ?? 8192;
  let everyPage = snapshot.format === 2;
  let relationBytes = 0;
  for (const [path, { name, bytes, pages }] of Object.entries(snapshot.files ?? {})) {
    let now: number;
    try {
      now = statSync(join(dataDir, path)).size;
    } catch {
      problems.set(path, `${name} (file ${join(dataDir, path)}) is gone; it had ${bytes.toLocaleString('en')} bytes when the brain last closed`);
      continue;
    }
    relationBytes += now;
    if (now < bytes) problems.set(path, `${name} (file ${join(dataDir, path)}) has ${now.toLocaleString('en')} bytes; it had ${bytes.toLocaleString('en')} when the brain last closed`);
    else if (pages === undefined) everyPage = false;
    else if (now < pages * block) {
      problems.set(
        path,
        `${name} (file ${join(dataDir, path)}) has ${now.toLocaleString('en')} bytes, but the database recorded ${pages.toLocaleString('en')} page${pages === 1 ? '' : 's'} (${((pages * block) / 1024).toLocaleString('en')} kB) for it`,
      );
    }
  }
  const relations = everyPage ? { blockSize: block, files: Object.entries(snapshot.files ?? {}).map(([path, f]) => ({ name: f.name, path, pages: f.pages ?? 0 })) } : undefined;
  return { problems, coversRecordedPages: everyPage, relationBytes, ...(relations ? { relations } : {}) };
}

/** Files smaller than at the last clean close, or gone (path -> what is wrong); see checkSinceClose. */
export function shrunkSinceClose(dataDir: string): Map<string, string> {
  return checkSinceClose(dataDir).problems;
}

/** The brain is open: the snapshot no longer describes the files. */
export function dropSnapshot(dataDir: string): void {
  rmSync(join(dataDir, SNAPSHOT_FILE), { force: true });
}

/** Files shorter than the database records for them, one line each naming the file. */
export async function shortFiles(pg: PGlite, dataDir: string): Promise<string[]> {
  return (await shortRelations(pg).catch(() => [])).map(
    (r) =>
      `${r.kind} ${r.schema}.${r.name} (file ${join(dataDir, r.path)}) has ${r.bytes.toLocaleString('en')} bytes, but the database recorded ${r.recordedPages.toLocaleString('en')} page${r.recordedPages === 1 ? '' : 's'} (${(r.recordedPages * 8).toLocaleString('en')} kB) for it`,
  );
}
