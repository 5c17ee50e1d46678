// The embedded brain: PGlite (Postgres in WASM) in a data directory, for machines with no
// Postgres server. One process holds every subject, but each transaction runs as the
// subject's role (SET LOCAL ROLE), so Postgres still enforces the same grants.
import { mkdirSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Mutex } from './mutex.js';

/** int8 as a JS number, like the server pools: ids stay far below 2^53. */
const INT8 = 20;
/**
 * bytea from its hex text with Buffer's native decoder. PGlite's own parser calls parseInt once
 * per byte: reading back the 22 MB of original pages a 7,500-page import checks took seconds.
 */
const BYTEA = 17;
const parseBytea = (v: string): Buffer => Buffer.from(v.startsWith('\\x') ? v.slice(2) : v, 'hex');

/**
 * PGlite's page cache (shared_buffers), which it allocates and touches in full at start: RSS is
 * about 180 MB plus 1.2 times the cache (measured: 181 MB at 16 MB, 301 MB at 128 MB, 700 MB at
 * 512 MB). A page not in it is a file read through the WASM file-system layer, and a brain of
 * 100k cards holds about 300 MB of cards and full-text index and 300 MB of vector index, read at
 * scattered pages by every search: there, 128 MB makes hybrid search about 1.8 times slower
 * (docs/retrieval.md). A small brain needs little: on 7,500 GBrain pages (214 MB of relations)
 * keyword search took the same CPU per query with 32, 64 or 128 MB (warm p50 17-20 ms), and 16 MB
 * was 25-50% slower. So the cache follows the brain's size on disk, half of it, between these
 * bounds: it is sized by what the brain holds, not by a fixed floor.
 */
export const SHARED_BUFFERS_MB = { min: 32, max: 512 };

/**
 * The full-text indexes' pending list, in kB (Postgres's default is 4 MB). A write to a card puts
 * every word of it into that list, unsorted, and every search scans the whole list until it is
 * merged into the index: by the write that fills it, by VACUUM or by the maintenance pass
 * (db/embedded-maintenance.ts, once a minute). A server's autovacuum merges it soon after
 * writes; PGlite has none, and scans it several times slower. Under 20 clients appending to
 * the same cards (bench/load), the 4 MB list made each remember's candidate search about five
 * times slower (a remember 230 ms of CPU instead of 80) and the embedded brain served 15
 * operations a second; with 256 kB it served 30. The write that fills the list pays for
 * merging it, a smaller list each time.
 */
export const GIN_PENDING_LIST_KB = 256;

/**
 * Write-ahead log bounds. PGlite is one backend with no checkpointer: Postgres never checkpoints
 * it while it runs (max_wal_size only ever triggers the checkpointer process), so pg_wal grows
 * until the brain closes (225 MB after 210 MB of inserts, measured), and at close it keeps as
 * many recycled segments as the last checkpoint's distance suggests, up to max_wal_size (1 GB
 * by default: 193 MB of a 313 MB data directory after a 7,500-page import). So the brain
 * checkpoints itself once this much WAL has been written since the last checkpoint
 * (checkpointIfDue, every CHECKPOINT_CHECK_MS while open; a checkpoint took 70-80 ms), and
 * keeps two 16 MB segments at most (min_wal_size and max_wal_size at the least Postgres allows).
 */
export const WAL_CHECKPOINT_BYTES = 32 * 2 ** 20;
export const WAL_KEEP = { minMb: 32, maxMb: 32 };
export const CHECKPOINT_CHECK_MS = 15_000;

export interface EmbeddedOptions {
  /** shared_buffers in MB; by default sized from the data directory (cacheSizeFor). */
  sharedBuffersMb?: number;
  /** How often the WAL written since the last checkpoint is looked at (checkpointIfDue); default CHECKPOINT_CHECK_MS. */
  checkpointCheckMs?: number;
}

/** Half the relation files' size in MB, within SHARED_BUFFERS_MB. */
export function cacheSizeFor(dir: string | undefined): number {
  const bytes = dir ? directoryBytes(join(dir, 'base')) : 0;
  return Math.min(SHARED_BUFFERS_MB.max, Math.max(SHARED_BUFFERS_MB.min, Math.ceil(bytes / 2 / 2 ** 20)));
}

function directoryBytes(dir: string): number {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0; // not created yet
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += directoryBytes(path);
    else if (e.isFile()) total += statSync(path).size;
  }
  return total;
}

export class EmbeddedDatabase {
  /** PGlite is one connection: a transaction must own it from BEGIN to COMMIT. */
  readonly lock = new Mutex();

  private readonly checkpoints: NodeJS.Timeout | undefined;
  private checking: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly pg: PGlite,
    checkpointCheckMs: number | undefined,
  ) {
    if (checkpointCheckMs === undefined) return;
    this.checkpoints = setInterval(() => {
      this.checking = this.checking.then(() => this.checkpointIfDue()).catch(() => undefined);
    }, checkpointCheckMs);
    this.checkpoints.unref();
  }

  /**
   * Checkpoints when WAL_CHECKPOINT_BYTES or more of WAL was written since the last one, between
   * transactions (it takes the lock). Returns whether it did.
   */
  async checkpointIfDue(limit = WAL_CHECKPOINT_BYTES): Promise<boolean> {
    return this.lock.run(async () => {
      const { rows } = await this.pg.query<{ bytes: number }>('SELECT (pg_current_wal_lsn() - redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()');
      if (Number(rows[0]?.bytes ?? 0) < limit) return false;
      await this.pg.exec('CHECKPOINT');
      return true;
    });
  }

  /** Opens (creating if needed) the brain in `dir`; `undefined` gives an in-memory brain for tests. */
  static async open(dir?: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const startParams = [
      ...PGlite.defaultStartParams,
      '-c',
      `shared_buffers=${options.sharedBuffersMb ?? cacheSizeFor(dir)}MB`,
      '-c',
      `gin_pending_list_limit=${GIN_PENDING_LIST_KB}kB`,
      '-c',
      `min_wal_size=${WAL_KEEP.minMb}MB`,
      '-c',
      `max_wal_size=${WAL_KEEP.maxMb}MB`,
    ];
    const pg = await PGlite.create(dir, { extensions: { vector, pg_trgm }, parsers: { [INT8]: (v: string) => Number(v), [BYTEA]: parseBytea }, startParams });
    // An in-memory brain (tests) has no files to keep small.
    return new EmbeddedDatabase(pg, dir ? (options.checkpointCheckMs ?? CHECKPOINT_CHECK_MS) : undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.checkpoints);
    await this.checking;
    await this.lock.run(() => this.pg.close());
  }
}
