// PGlite's memory prepared before Postgres zeroes its page cache (db/pglite-memory.ts): a
// server-sized cache starts in a memory big enough for it, populated in huge pages, and the
// memory is back on normal pages once PGlite is open; a small cache (a one-shot command, an
// import) is only advised, so nothing it never touches becomes resident.
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { POPULATE_MIN_CACHE_MB, wasmMemoryOf, zeroingPrepOf } from '../../db/pglite-memory.js';
import { hugePagesOnAdvice, mappingsOf } from '../support/memory-maps.js';

const MiB = 1024 * 1024;
/** PGlite's maximum memory, the range the advice covers. */
const MAX_BYTES = 32_768 * 65_536;

describe.runIf(process.platform === 'linux')('PGlite memory made quick to zero', () => {
  let db: EmbeddedDatabase | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it.runIf(hugePagesOnAdvice())('opens a server-sized cache in a populated memory, then settles it on normal pages', async () => {
    expect(POPULATE_MIN_CACHE_MB).toBe(64);
    db = await EmbeddedDatabase.open(undefined, { sharedBuffersMb: 96 });
    expect(zeroingPrepOf(db.pg)).toEqual({ hugePages: true, populated: true });
    const memory = wasmMemoryOf(db.pg)!;
    // The cache and 64 MB besides it, so Postgres's zeroing found it all populated: no growth at start.
    expect(memory.byteLength).toBe(160 * MiB);
    const maps = mappingsOf(memory.buffer as ArrayBuffer, MAX_BYTES);
    expect(maps.hugeKiB).toBeGreaterThanOrEqual(96 * 1024);
    expect(maps.flags.length).toBeGreaterThan(0);
    expect(maps.flags.every((f) => f.split(' ').includes('nh'))).toBe(true);
    const { rows } = await db.pg.query<{ buffers: string }>("SELECT current_setting('shared_buffers') AS buffers");
    expect(rows[0]?.buffers).toBe('96MB');
  });

  it.runIf(hugePagesOnAdvice())('only advises a small cache, which starts in PGlite\'s own 128 MB', async () => {
    db = await EmbeddedDatabase.open(undefined, { sharedBuffersMb: 16 });
    expect(zeroingPrepOf(db.pg)).toEqual({ hugePages: true, populated: false });
    const memory = wasmMemoryOf(db.pg)!;
    expect(memory.byteLength).toBe(128 * MiB);
    // Postgres touched its cache and a few MB besides, far from all of the 128 MB.
    expect(mappingsOf(memory.buffer as ArrayBuffer).rssKiB).toBeLessThan(96 * 1024);
  });

  it.runIf(!hugePagesOnAdvice())('opens as before where the kernel gives no huge pages', async () => {
    db = await EmbeddedDatabase.open(undefined, { sharedBuffersMb: 96 });
    expect(zeroingPrepOf(db.pg)).toBeNull();
    expect((await db.pg.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
  });
});
