// PGlite's extensions are put in place at open and loaded by Postgres when first used
// (db/lazy-extensions.ts): the bundle is read whole and right, PGlite is left nothing to preload,
// and pgvector and pg_trgm work in a brain opened that way.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { loadedWhenUsed, untar } from '../../db/lazy-extensions.js';

/** One ustar header and its data, padded to 512-byte blocks. */
function entry(name: string, data: string, type = '0', prefix = ''): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.write(type, 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write(prefix, 345, 'utf8');
  const body = Buffer.alloc(Math.ceil(data.length / 512) * 512);
  body.write(data, 0, 'utf8');
  return Buffer.concat([header, body]);
}
const END = Buffer.alloc(1024);

const vectorBundle = () => join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite-pgvector')), 'vector.tar.gz');

describe('untar', () => {
  it('reads regular files, with a prefix, across blocks, and skips directories', () => {
    const long = 'x'.repeat(700);
    const files = untar(Buffer.concat([entry('share/', '', '5'), entry('./share/a.sql', 'SELECT 1;'), entry('b.control', long, '0', 'share/ext'), entry('empty', ''), END]));
    expect(files.map((f) => [f.name, Buffer.from(f.data).toString()])).toEqual([
      ['share/a.sql', 'SELECT 1;'],
      ['share/ext/b.control', long],
      ['empty', ''],
    ]);
  });

  it('refuses an archive cut short and a long-name entry, naming the entry', () => {
    const whole = Buffer.concat([entry('lib/x.so', 'y'.repeat(600)), END]);
    expect(() => untar(whole.subarray(0, 700))).toThrow(/"lib\/x\.so" is cut short/);
    expect(() => untar(Buffer.concat([entry('././@LongLink', 'a/very/long/name', 'L'), END]))).toThrow(/long-name or pax entry/);
  });

  it('reads pgvector\'s bundle as tar lists it: the library, its control file, its scripts', () => {
    const files = untar(gunzipSync(readFileSync(vectorBundle())));
    const names = files.map((f) => f.name);
    expect(names.length).toBe(47);
    const library = files.find((f) => f.name === 'lib/postgresql/vector.so');
    expect(Buffer.from(library!.data.subarray(0, 4))).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d])); // "\0asm"
    expect(library!.data.length).toBeGreaterThan(50_000);
    expect(Buffer.from(files.find((f) => f.name === 'share/postgresql/extension/vector.control')!.data).toString()).toMatch(/module_pathname = '\$libdir\/vector'/);
    expect(names.filter((n) => /^share\/postgresql\/extension\/vector--[\d.]+\.sql$/.test(n)).length).toBe(1);
  });
});

describe('an extension loaded when first used', () => {
  it('hands PGlite no bundle to preload and adds one step that writes the files, headers left out', async () => {
    const earlier = () => undefined;
    const result = await loadedWhenUsed(vector).setup({} as never, { preRun: [earlier] });
    expect(result.bundlePath).toBeUndefined();
    const steps = (result.emscriptenOpts as { preRun: ((mod: unknown) => void)[] }).preRun;
    expect(steps.length).toBe(2);
    expect(steps[0]).toBe(earlier);
    const written = new Map<string, Uint8Array>();
    const dirs = new Set<string>();
    steps[1]!({ WASM_PREFIX: '/pglite', FS: { mkdirTree: (d: string) => dirs.add(d), writeFile: (p: string, d: Uint8Array) => written.set(p, d) } });
    expect(written.size).toBe(44); // 47 files less 3 headers
    expect(written.get('/pglite/lib/postgresql/vector.so')!.length).toBeGreaterThan(50_000);
    expect([...written.keys()].filter((p) => p.includes('/include/')).length).toBe(0);
    expect(dirs.has('/pglite/share/postgresql/extension')).toBe(true);
  });

  describe('in a brain', () => {
    let db: EmbeddedDatabase;
    beforeAll(async () => {
      db = await EmbeddedDatabase.open();
    }, 120_000);
    afterAll(async () => db?.close());

    it('pgvector and pg_trgm install and answer; their libraries are in the file system, their headers not', async () => {
      const rows = await db.runIfAwake(async (pg) => {
        const fs = pg.Module.FS as { analyzePath(p: string): { exists: boolean } };
        const present = ['lib/postgresql/vector.so', 'lib/postgresql/pg_trgm.so', 'share/postgresql/extension/pg_trgm.control'].map((p) => fs.analyzePath(`/pglite/${p}`).exists);
        const headers = fs.analyzePath('/pglite/include/postgresql/server/extension/vector/vector.h').exists;
        await pg.exec('CREATE SCHEMA ext; CREATE EXTENSION vector SCHEMA ext; CREATE EXTENSION pg_trgm SCHEMA ext');
        const r = await pg.query<{ d: number; s: number }>(
          "SELECT ('[1,2,3]'::ext.vector OPERATOR(ext.<->) '[1,2,5]'::ext.vector)::float8 AS d, round(ext.similarity('grafana', 'grafano')::numeric, 3)::float8 AS s",
        );
        return { present, headers, row: r.rows[0] };
      });
      expect(rows).toEqual({ present: [true, true, true], headers: false, row: { d: 2, s: 0.6 } });
    }, 60_000);
  });
});
