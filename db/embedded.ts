// The embedded brain: PGlite (Postgres in WASM) in a data directory, for machines with no
// Postgres server. One process holds every subject, but each transaction runs as the
// subject's role (SET LOCAL ROLE), so Postgres still enforces the same grants.
import { mkdirSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { pageinspect } from '@electric-sql/pglite/contrib/pageinspect';
import { loadedWhenUsed } from './lazy-extensions.js';
import { Mutex } from './mutex.js';
import { pgliteMemoryOptions, settlePGliteMemory, wasmMemoryOf } from './pglite-memory.js';
import { compiledPostgres } from './postgres-wasm.js';
import { BrainAsleepError } from './work-order.js';
import { dropZeroPages, giveMemoryBack, trimFreedMemory, type MemoryGiveBack } from './process-memory.js';

export { BrainAsleepError };

/** int8 as a JS number, like the server pools: ids stay far below 2^53. */
const INT8 = 20;
/**
 * bytea from its hex text with Buffer's native decoder. PGlite's own parser calls parseInt once
 * per byte: reading back the 22 MB of original pages a 7,500-page import checks took seconds.
 */
const BYTEA = 17;
const parseBytea = (v: string): Buffer => Buffer.from(v.startsWith('\\x') ? v.slice(2) : v, 'hex');

/**
 * PGlite's page cache (shared_buffers), which Postgres zeroes in full at start (in memory
 * prepared in huge pages, db/pglite-memory.ts): RSS is about 180 MB plus 1.2 times the cache
 * (measured: 181 MB at 16 MB, 301 MB at 128 MB, 700 MB at 512 MB) until trimIfIdle hands back the
 * pages still zero, a second after the brain is left idle; then it grows with the pages read, up
 * to the cache. A page not in it is a file read through the WASM file-system layer, and a brain
 * of 100k cards holds about 300 MB of cards and full-text index and 300 MB of vector index, read
 * at scattered pages by every search: there, 128 MB makes hybrid search about 1.8 times slower
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
 * keeps two segments at most (min_wal_size and max_wal_size at the least Postgres allows).
 */
export const WAL_CHECKPOINT_BYTES = 32 * 2 ** 20;
/**
 * The segment size a new brain's initdb is given. Postgres's default, 16 MB, left two segments,
 * 32 MB, in pg_wal after every close: 13% of the data directory after a 7,500-page import. A
 * brain made before keeps its 16 MB segments (the size is fixed at initdb; walSegmentMbOf).
 */
export const NEW_BRAIN_WAL_SEGMENT_MB = 1;
/** The WAL kept between checkpoints and after a close: two segments, the least Postgres allows. */
export function walKeepMb(segmentMb: number): { minMb: number; maxMb: number } {
  return { minMb: 2 * segmentMb, maxMb: 2 * segmentMb };
}

/** The WAL segment size of the brain in `dir`, from a segment file's size; a new brain's if it has none yet. */
export function walSegmentMbOf(dir: string | undefined): number {
  if (!dir) return NEW_BRAIN_WAL_SEGMENT_MB;
  let names: string[];
  try {
    names = readdirSync(join(dir, 'pg_wal'));
  } catch {
    return NEW_BRAIN_WAL_SEGMENT_MB; // not created yet
  }
  // Every segment file is exactly the segment size (Postgres creates them zero-filled in full).
  const segment = names.find((n) => /^[0-9A-F]{24}$/.test(n));
  if (!segment) return NEW_BRAIN_WAL_SEGMENT_MB;
  return statSync(join(dir, 'pg_wal', segment)).size / 2 ** 20;
}
export const CHECKPOINT_CHECK_MS = 15_000;
/**
 * An awake brain idle this long gives memory back (trimIfIdle), a full garbage collection
 * included: long enough that a conversation's burst of tool calls is over and V8 sees the
 * allocation rate low (only then does a collection shrink its young generation, which a start
 * and a burst of searches grow to two semi-spaces of 16 MB), far shorter than the sleep's minutes.
 */
export const AWAKE_TRIM_AFTER_MS = 10_000;
/**
 * A PGlite just opened (a start, a wake) has its whole page cache zeroed and resident: the first
 * idle check after it has been idle this long hands the untouched pages back (trimIfIdle), not
 * waiting for AWAKE_TRIM_AFTER_MS.
 */
export const FRESH_OPEN_TRIM_AFTER_MS = 1_000;

/** What an awake brain's idle trim gave back (trimIfIdle). */
export interface IdleTrim {
  /** Whether a full garbage collection ran (not in the quick trim of a PGlite just opened). */
  collected: boolean;
  /** Whether glibc's malloc_trim ran. */
  trimmed: boolean;
  /** Bytes of untouched (all-zero) PGlite memory handed back; null where that cannot run. */
  zeroPagesDropped: number | null;
  /** Pages of it read to find them (those the kernel holds, resident or swapped); null likewise. */
  zeroPagesRead: number | null;
}

export interface EmbeddedOptions {
  /** shared_buffers in MB; by default sized from the data directory (cacheSizeFor). */
  sharedBuffersMb?: number;
  /** How often the WAL written since the last checkpoint is looked at (checkpointIfDue); default CHECKPOINT_CHECK_MS. */
  checkpointCheckMs?: number;
}

/** Half the relation files' size in MB, within SHARED_BUFFERS_MB. */
export function cacheSizeFor(dir: string | undefined): number {
  return cacheSizeForBytes(dir ? directoryBytes(join(dir, 'base')) : 0);
}

/**
 * Half of `bytes` (the relation files' size) in MB, within SHARED_BUFFERS_MB. db/open.ts passes
 * the size its close check has just read from every relation file: walking the data directory
 * again (cacheSizeFor) was 28 ms of a server's start at 7,500 pages, 1,380 files.
 */
export function cacheSizeForBytes(bytes: number): number {
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

/**
 * What the owner of the data directory does around each close of PGlite (db/open.ts: the file
 * sizes and the catalog the next open checks). `closing` reads what it needs while PGlite is
 * still open and returns what to do once it has closed; `opened` runs after each reopening.
 */
export interface CloseHooks {
  closing(pg: PGlite): Promise<() => void>;
  opened(): void;
}

/** Told when the brain falls asleep and wakes (a server logs them). */
export interface SleepEvents {
  slept?(memory: MemoryGiveBack): void;
  woke?(ms: number): void;
  /** An awake brain's idle trim ran (trimIfIdle), taking `ms` of this thread. */
  trimmed?(trim: IdleTrim, ms: number): void;
}

export class EmbeddedDatabase {
  /** PGlite is one connection: a transaction must own it from BEGIN to COMMIT. */
  readonly lock = new Mutex();

  private current: PGlite | undefined;
  private opened = 1;
  private lastUse = performance.now();
  /** When malloc's freed memory was last given back while awake (trimIfIdle), and for which PGlite. */
  private trimmedAt = 0;
  private trimmedGeneration = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The awake idle trim's idle time, once sleepWhenIdle has set the checks up. */
  private trimAfterMs: number | undefined;
  private hooks: CloseHooks | undefined;
  private events: SleepEvents = {};
  private closed = false;
  private readonly checkpoints: NodeJS.Timeout | undefined;
  private checking: Promise<unknown> = Promise.resolve();
  /** Times the brain went to sleep and woke (tests, logs). */
  readonly sleeps = { slept: 0, woke: 0, lastWakeMs: 0, lastGiveBack: undefined as MemoryGiveBack | undefined, lastIdleTrim: undefined as IdleTrim | undefined };

  private constructor(
    pg: PGlite,
    private readonly dir: string | undefined,
    private readonly startParams: string[],
    private readonly cacheMb: number,
    checkpointCheckMs: number | undefined,
  ) {
    this.current = pg;
    if (checkpointCheckMs === undefined) return;
    this.checkpoints = setInterval(() => {
      this.checking = this.checking.then(() => this.checkpointIfDue()).catch(() => undefined);
    }, checkpointCheckMs);
    this.checkpoints.unref();
  }

  /** The open PGlite. Only under the lock, taken with acquire() (which wakes a sleeping brain) or runIfAwake(). */
  get pg(): PGlite {
    if (!this.current) throw new BrainAsleepError();
    return this.current;
  }

  /** Whether PGlite is open (false while the brain sleeps, see sleepWhenIdle). */
  get awake(): boolean {
    return this.current !== undefined;
  }

  /**
   * Which PGlite instance this is: statements prepared in its session (db/pglite-dialect.ts)
   * belong to it and are prepared again in the next one.
   */
  get generation(): number {
    return this.opened;
  }

  /**
   * Takes the connection, waking the brain if it sleeps. Background work (the embedding
   * worker's polls, maintenance) neither wakes it (it gets BrainAsleepError) nor counts as a
   * use that keeps it awake.
   */
  async acquire(priority?: number, background = false): Promise<() => void> {
    const release = await this.lock.acquire(priority);
    try {
      if (!this.current) {
        if (background || this.closed) throw this.closed ? new Error('the embedded brain is closed') : new BrainAsleepError();
        await this.wake();
      }
    } catch (error) {
      release();
      throw error;
    }
    if (background) return release;
    this.lastUse = performance.now();
    return () => {
      this.lastUse = performance.now();
      release();
    };
  }

  /** Runs `fn` holding the connection if the brain is awake; undefined if it sleeps or is closed. Not a use. */
  async runIfAwake<T>(fn: (pg: PGlite) => Promise<T>): Promise<T | undefined> {
    if (this.closed) return undefined;
    let release: () => void;
    try {
      release = await this.acquire(undefined, true);
    } catch (error) {
      if (error instanceof BrainAsleepError || this.closed) return undefined;
      throw error;
    }
    try {
      return await fn(this.pg);
    } finally {
      release();
    }
  }

  /** Set by the owner of the data directory before the brain may sleep (db/open.ts). */
  setCloseHooks(hooks: CloseHooks): void {
    this.hooks = hooks;
  }

  /**
   * Closes PGlite after `idleMs` with no use, giving its memory back (its page cache, Postgres's
   * own memory and the WebAssembly instance: most of an idle server's memory), and opens it again
   * on the next request. The data directory stays locked by this process meanwhile, so nothing
   * else can change it: waking needs no checks, only PGlite's start. Looked at every
   * `checkEveryMs` (default a tenth of idleMs, at most a quarter of AWAKE_TRIM_AFTER_MS); a check
   * that does not sleep gives memory back once the brain has been idle for AWAKE_TRIM_AFTER_MS
   * (trimIfIdle). An infinite idleMs never sleeps and still trims.
   */
  sleepWhenIdle(
    idleMs: number,
    events: SleepEvents = {},
    checkEveryMs = Math.min(AWAKE_TRIM_AFTER_MS / 4, Math.max(50, idleMs / 10)),
  ): void {
    if (!this.dir) throw new Error('an in-memory brain cannot sleep: closing it would lose everything in it');
    clearInterval(this.idleTimer);
    this.events = events;
    this.trimAfterMs = Math.min(AWAKE_TRIM_AFTER_MS, idleMs);
    const check = async () => {
      if (!(await this.sleepIfIdle(idleMs))) this.trimIfIdle(this.trimAfterMs!);
    };
    this.idleTimer = setInterval(() => void check().catch(() => undefined), checkEveryMs);
    this.idleTimer.unref();
    this.trimSoonAfterOpen();
  }

  /**
   * For the page cache of a PGlite just opened: a look as soon as it has been idle for
   * FRESH_OPEN_TRIM_AFTER_MS, not at the next check (up to 2.5 s later), and again after each use
   * until it has given its memory back, fallen asleep or closed.
   */
  private trimSoonAfterOpen(): void {
    if (this.trimAfterMs === undefined) return;
    const generation = this.opened;
    const look = () => {
      if (this.closed || !this.current || this.opened !== generation || this.trimmedGeneration === generation) return;
      if (this.trimIfIdle(this.trimAfterMs!)) return;
      setTimeout(look, Math.max(250, this.lastUse + FRESH_OPEN_TRIM_AFTER_MS - performance.now() + 50)).unref();
    };
    setTimeout(look, FRESH_OPEN_TRIM_AFTER_MS + 50).unref();
  }

  /**
   * Gives memory back (db/process-memory.ts) if the brain is awake and nothing used it for
   * `afterMs`, once per idle spell: a full garbage collection (V8's heap, its young generation
   * shrunk once the allocation rate is low: 32 MB of a 7,500-page server idle for 10 s), malloc's
   * freed memory (what V8's compiler freed while tiering Postgres up, 60 MB of an awake 7,500-page
   * server idle for 20 s) and PGlite's untouched pages (most of the page cache after a start: 336
   * of a 349 MB memory with a 262 MB cache). A PGlite opened since the last time (a start, a wake)
   * gets a quick trim first, with no collection, after FRESH_OPEN_TRIM_AFTER_MS of idleness: its
   * untouched pages and malloc's, before the collection could shrink anything.
   * Returns whether it ran (what it gave back is in sleeps.lastIdleTrim).
   */
  trimIfIdle(afterMs: number): boolean {
    if (!this.current || this.closed || this.lock.busy) return false;
    const idle = performance.now() - this.lastUse;
    const settled = this.trimmedAt < this.lastUse && idle >= afterMs;
    const fresh = this.trimmedGeneration !== this.opened && idle >= Math.min(afterMs, FRESH_OPEN_TRIM_AFTER_MS);
    if (!settled && !fresh) return false;
    const started = performance.now();
    if (settled) this.trimmedAt = started;
    this.trimmedGeneration = this.opened;
    const memory = wasmMemoryOf(this.current);
    const freed = settled ? giveMemoryBack() : { collected: false, trimmed: trimFreedMemory() };
    const zero = memory ? dropZeroPages(memory) : null;
    this.sleeps.lastIdleTrim = { ...freed, zeroPagesDropped: zero?.bytes ?? null, zeroPagesRead: zero?.pagesRead ?? null };
    this.events.trimmed?.(this.sleeps.lastIdleTrim, Math.round(performance.now() - started));
    return true;
  }

  /** Sleeps now if nothing used the brain for `idleMs` (and nothing holds or waits for it). Returns whether it slept. */
  async sleepIfIdle(idleMs: number): Promise<boolean> {
    if (!this.dir || !this.current || this.closed || this.lock.busy || performance.now() - this.lastUse < idleMs) return false;
    const release = await this.lock.acquire();
    try {
      if (!this.current || this.closed || this.lock.waiting > 0 || performance.now() - this.lastUse < idleMs) return false;
      await this.closeCurrent();
      this.sleeps.slept++;
      this.sleeps.lastGiveBack = giveMemoryBack();
      this.events.slept?.(this.sleeps.lastGiveBack);
      return true;
    } finally {
      release();
    }
  }

  private async closeCurrent(): Promise<void> {
    const pg = this.current!;
    const after = this.hooks ? await this.hooks.closing(pg).catch(() => undefined) : undefined;
    this.current = undefined;
    await pg.close();
    after?.();
  }

  private async wake(): Promise<void> {
    const started = performance.now();
    this.current = await createPGlite(this.dir, this.startParams, this.cacheMb);
    this.opened++;
    this.sleeps.woke++;
    this.sleeps.lastWakeMs = Math.round(performance.now() - started);
    this.hooks?.opened();
    this.events.woke?.(this.sleeps.lastWakeMs);
    this.trimSoonAfterOpen();
  }

  /**
   * Checkpoints when WAL_CHECKPOINT_BYTES or more of WAL was written since the last one, between
   * transactions (it takes the lock), if the brain is awake. Returns whether it did.
   */
  async checkpointIfDue(limit = WAL_CHECKPOINT_BYTES): Promise<boolean> {
    const done = await this.runIfAwake(async (pg) => {
      const { rows } = await pg.query<{ bytes: number }>('SELECT (pg_current_wal_lsn() - redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()');
      if (Number(rows[0]?.bytes ?? 0) < limit) return false;
      await pg.exec('CHECKPOINT');
      return true;
    });
    return done === true;
  }

  /** Opens (creating if needed) the brain in `dir`; `undefined` gives an in-memory brain for tests. */
  static async open(dir?: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const walKeep = walKeepMb(walSegmentMbOf(dir));
    const cacheMb = options.sharedBuffersMb ?? cacheSizeFor(dir);
    const startParams = [
      ...PGlite.defaultStartParams,
      '-c',
      `shared_buffers=${cacheMb}MB`,
      '-c',
      `gin_pending_list_limit=${GIN_PENDING_LIST_KB}kB`,
      '-c',
      `min_wal_size=${walKeep.minMb}MB`,
      '-c',
      `max_wal_size=${walKeep.maxMb}MB`,
    ];
    const pg = await createPGlite(dir, startParams, cacheMb);
    // An in-memory brain (tests) has no files to keep small.
    return new EmbeddedDatabase(pg, dir, startParams, cacheMb, dir ? (options.checkpointCheckMs ?? CHECKPOINT_CHECK_MS) : undefined);
  }

  /** Closes PGlite for good (running the close hooks if it is awake); a sleeping brain only stops its timers. */
  async close(): Promise<void> {
    clearInterval(this.checkpoints);
    clearInterval(this.idleTimer);
    await this.checking;
    const release = await this.lock.acquire();
    try {
      if (this.closed) return;
      this.closed = true;
      if (this.current) await this.closeCurrent();
    } finally {
      release();
    }
  }
}

async function createPGlite(dir: string | undefined, startParams: string[], cacheMb: number): Promise<PGlite> {
  const memory = pgliteMemoryOptions(cacheMb);
  const pg = await PGlite.create(dir, {
    pgliteWasmModule: await compiledPostgres(),
    initialMemory: memory.initialMemory,
    // Their libraries load when Postgres first calls into them, not at every open (db/lazy-extensions.ts).
    extensions: { vector: loadedWhenUsed(vector), pg_trgm: loadedWhenUsed(pg_trgm), pageinspect: loadedWhenUsed(pageinspect), memory: memory.extension },
    parsers: { [INT8]: (v: string) => Number(v), [BYTEA]: parseBytea },
    startParams,
    // Used only when `dir` holds no brain yet: initdb fixes the segment size for good.
    initDbStartParams: [`--wal-segsize=${NEW_BRAIN_WAL_SEGMENT_MB}`],
  });
  settlePGliteMemory(pg);
  return pg;
}
