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

export class EmbeddedDatabase {
  /** PGlite is one connection: a transaction must own it from BEGIN to COMMIT. */
  readonly lock = new Mutex();

  private constructor(readonly pg: PGlite) {}

  /** Opens (creating if needed) the brain in `dir`; `undefined` gives an in-memory brain for tests. */
  static async open(dir?: string): Promise<EmbeddedDatabase> {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pg = await PGlite.create(dir, { extensions: { vector, pg_trgm }, parsers: { [INT8]: (v: string) => Number(v) } });
    return new EmbeddedDatabase(pg);
  }

  async close(): Promise<void> {
    await this.lock.run(() => this.pg.close());
  }
}
