// The code cache the bundled CLI loads through on Node 20 (cli/code-cache.ts): a chunk compiled
// from source the first time has its cached data written at exit; the next process compiles it
// from that data, and runs it the same (exports, require outside the bundle, __filename, stack
// lines). A file V8 refuses is compiled from source and written again; the cache is kept per
// build and Node flags, in the user's cache directory, off with BRAIN_CODE_CACHE=off.
import { spawnSync } from 'node:child_process';
import module from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';

const CODE_CACHE = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'cli', 'code-cache.js')).href;
const onNode20 = typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function';

describe.runIf(onNode20)('the code cache (Node 20)', () => {
  let dir: string;
  let bundle: string;
  let cacheHome: string;
  let runs = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brain-code-cache-'));
    bundle = join(dir, 'bundle');
    cacheHome = join(dir, 'cache');
    mkdirSync(join(bundle, 'chunks'), { recursive: true });
    writeFileSync(join(dir, 'dep.cjs'), 'exports.answer = 42;\n');
    writeFileSync(
      join(bundle, 'chunks', 'part-abc.cjs'),
      [
        "const path = require('node:path');",
        'exports.where = () => path.basename(__filename) + " in " + path.basename(__dirname);',
        'exports.line = () => Number(/part-abc\\.cjs:(\\d+)/.exec(new Error("here").stack)[1]);',
        "exports.answer = require('../../dep.cjs').answer;",
        'exports.resolved = require.resolve("./part-abc.cjs");',
      ].join('\n'),
    );
    writeFileSync(join(bundle, 'entry-b1.cjs'), "const part = require('./chunks/part-abc.cjs');\nmodule.exports = part;\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A fresh process that loads the bundle through the cache and prints what it saw. */
  function run(env: Record<string, string> = {}, flags: string[] = [], then = '') {
    const script = `
      import { createRequire } from 'node:module';
      const { installCodeCache } = await import(${JSON.stringify(CODE_CACHE)});
      const cache = installCodeCache(${JSON.stringify(bundle + '/')}, 'b1');
      const part = createRequire(${JSON.stringify(join(bundle, 'x.cjs'))})('./entry-b1.cjs');
      const out = { where: part.where(), line: part.line(), answer: part.answer, resolved: part.resolved, dir: cache.dir };
      ${then}
      process.on('exit', () => console.log(JSON.stringify({ ...out, stats: cache.stats })));
    `;
    // A file, not -e: the script would be in process.execArgv, which keys the cache's folder.
    const file = join(dir, `run-${++runs}.mjs`);
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, [...flags, file], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), XDG_CACHE_HOME: cacheHome, ...env },
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      where: string;
      line: number;
      answer: number;
      resolved: string;
      dir: string | undefined;
      stats: { hits: number; misses: number; rejected: number; written: number };
    };
  }

  it('compiles from source once, then from the cached data, and runs the chunk the same', () => {
    const first = run();
    expect(first.stats).toEqual({ hits: 0, misses: 2, rejected: 0, written: 2 });
    expect(first.dir!.startsWith(join(cacheHome, 'claude-brain', 'code', 'b1-'))).toBe(true);
    expect(readdirSync(first.dir!).sort()).toEqual(['entry-b1.cjs.v8', 'part-abc.cjs.v8']);
    expect(statSync(first.dir!).mode & 0o777).toBe(0o700);

    const second = run();
    expect(second.stats).toEqual({ hits: 2, misses: 0, rejected: 0, written: 0 });
    for (const r of [first, second]) {
      expect(r.where).toBe('part-abc.cjs in chunks');
      // The wrapper sits on a line of its own: line numbers are the file's.
      expect(r.line).toBe(3);
      expect(r.answer).toBe(42);
      expect(r.resolved).toBe(join(bundle, 'chunks', 'part-abc.cjs'));
    }
  });

  it('writes data the next start accepts after the process gave memory back (a server that slept)', () => {
    const giveBack = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'db', 'process-memory.js')).href;
    const root = join(cacheHome, 'claude-brain', 'code');
    rmSync(root, { recursive: true, force: true });
    // giveMemoryBack() turns on --expose-gc for its collection; left on, the data written at exit would carry other flags.
    const slept = run({}, [], `(await import(${JSON.stringify(giveBack)})).giveMemoryBack();`);
    expect(slept.stats).toMatchObject({ misses: 2, written: 2 });
    expect(run().stats).toEqual({ hits: 2, misses: 0, rejected: 0, written: 0 });
  });

  it('compiles from source a file V8 refuses, and writes it again', () => {
    const { dir: cacheDir } = run();
    const file = join(cacheDir!, 'part-abc.cjs.v8');
    const good = readFileSync(file);
    writeFileSync(file, Buffer.from(good.subarray(0, 64)));
    const r = run();
    expect(r.stats).toEqual({ hits: 1, misses: 0, rejected: 1, written: 1 });
    expect(r.answer).toBe(42);
    expect(run().stats).toEqual({ hits: 2, misses: 0, rejected: 0, written: 0 });
  });

  it('keeps one folder per set of Node flags, and removes other builds untouched for a week', () => {
    const plain = run().dir!;
    const flagged = run({}, ['--max-semi-space-size=4']);
    expect(flagged.dir).not.toBe(plain);
    expect(flagged.stats.misses).toBe(2);
    expect(run({}, ['--max-semi-space-size=4']).stats.hits).toBe(2);

    const root = join(cacheHome, 'claude-brain', 'code');
    const stale = join(root, 'old-build');
    const recent = join(root, 'other-build');
    for (const d of [stale, recent]) mkdirSync(d, { recursive: true });
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    utimesSync(stale, weekAgo, weekAgo);
    // A new folder (new flags) is what prunes.
    run({}, ['--stack-size=900']);
    const left = readdirSync(root);
    expect(left).toContain('other-build');
    expect(left).not.toContain('old-build');
  });

  it('is off with BRAIN_CODE_CACHE=off, and with no cache directory', () => {
    const off = run({ BRAIN_CODE_CACHE: 'off', XDG_CACHE_HOME: join(dir, 'unused') });
    expect(off.dir).toBeUndefined();
    expect(off.stats).toEqual({ hits: 0, misses: 0, rejected: 0, written: 0 });
    expect(off.answer).toBe(42);
    // A cache directory that cannot be made (a file in its place): compiled from source, nothing written, no error.
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, '');
    const r = run({ XDG_CACHE_HOME: blocked });
    expect(r.stats).toMatchObject({ misses: 2, written: 0 });
    expect(r.answer).toBe(42);
  });
});

describe('the bundled CLI through the code cache', () => {
  it("turns on Node's own compile cache where Node has one, and not with BRAIN_CODE_CACHE=off", () => {
    // Node 22 and later have module.enableCompileCache; this Node may not, so a preloaded spy
    // stands in for it and notes each call in a file.
    const dir = mkdtempSync(join(tmpdir(), 'brain-compile-cache-spy-'));
    try {
      const spy = join(dir, 'spy.mjs');
      writeFileSync(spy, "import module from 'node:module';\nimport { appendFileSync } from 'node:fs';\nmodule.enableCompileCache = () => appendFileSync(process.env.SPY_NOTES, 'called\\n');\n");
      const calls = (extra: Record<string, string>) => {
        const notes = join(dir, `notes-${Object.keys(extra).length}`);
        const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: dir, SPY_NOTES: notes, ...extra };
        const r = spawnSync(process.execPath, ['--import', pathToFileURL(spy).href, join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js'), '--version'], { encoding: 'utf8', env });
        expect(r.status, r.stderr).toBe(0);
        try {
          return readFileSync(notes, 'utf8').split('\n').filter(Boolean).length;
        } catch {
          return 0;
        }
      };
      expect(calls({})).toBe(1);
      expect(calls({ BRAIN_CODE_CACHE: 'off' })).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes its chunks\' cached data on a first run and reads it on the next', () => {
    const cacheHome = mkdtempSync(join(tmpdir(), 'brain-code-cache-cli-'));
    try {
      const env = { PATH: process.env.PATH ?? '', HOME: cacheHome, XDG_CACHE_HOME: cacheHome };
      const brain = join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js');
      const first = spawnSync(process.execPath, [brain, '--version'], { encoding: 'utf8', env });
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^claude-brain \d+\.\d+\.\d+/);
      const root = join(cacheHome, 'claude-brain', 'code');
      if (!onNode20) {
        // Node 22 and later keep their own compile cache; ours stays out of the way.
        expect(() => readdirSync(root)).toThrow();
        return;
      }
      const [build] = readdirSync(root);
      const files = readdirSync(join(root, build!));
      expect(files.length).toBeGreaterThan(1);
      expect(files.every((f) => f.endsWith('.cjs.v8'))).toBe(true);
      const written = files.map((f) => statSync(join(root, build!, f)).mtimeMs);
      const again = spawnSync(process.execPath, [brain, '--version'], { encoding: 'utf8', env });
      expect(again.stdout).toBe(first.stdout);
      // Read, not written again.
      expect(readdirSync(join(root, build!)).map((f) => statSync(join(root, build!, f)).mtimeMs)).toEqual(written);
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
    }
  });
});
