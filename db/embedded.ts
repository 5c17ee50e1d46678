// The embedded brain: PGlite (Postgres in WASM) in a data directory, for machines with no
// Postgres server. One process holds every subject, but each transaction runs as the
// subject's role (SET LOCAL ROLE), so Postgres still enforces the same grants.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Mutex } from './mutex.js';

/** int8 as a JS number, like the server pools: ids stay far below 2^53. */
const INT8 = 20;

/**
 * PGlite's page cache. Its default (128 MB) is Postgres's, but here every page not in it is a
 * file read through the WASM file-system layer, and a brain of 100k cards has about 300 MB of
 * cards and full-text index and 300 MB of vector index: search reads scattered pages of
 * both. WASM memory is capped at 2 GB. (docs/retrieval.md has the measurements.)
 */
export const DEFAULT_SHARED_BUFFERS_MB = 128;

export interface EmbeddedOptions {
  /** shared_buffers in MB (16-1024). */
  sharedBuffersMb?: number;
}

export class EmbeddedDatabase {
  /** PGlite is one connection: a transaction must own it from BEGIN to COMMIT. */
  readonly lock = new Mutex();

  private constructor(readonly pg: PGlite) {}

  /** Opens (creating if needed) the brain in `dir`; `undefined` gives an in-memory brain for tests. */
  static async open(dir?: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffersMb ?? DEFAULT_SHARED_BUFFERS_MB}MB`];
    const pg = await PGlite.create(dir, { extensions: { vector, pg_trgm }, parsers: { [INT8]: (v: string) => Number(v) }, startParams });
    return new EmbeddedDatabase(pg);
  }

  async close(): Promise<void> {
    await this.lock.run(() => this.pg.close());
  }
}
