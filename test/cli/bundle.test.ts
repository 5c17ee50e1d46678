// The CLI that runs is the bundle (scripts/bundle.mjs): dist/cli/brain.js, which the bin and
// `npm start` run through bin/brain (test/cli/launcher.test.ts), and the image's entrypoint and
// every test that spawns the CLI run directly. A command run
// through it loads its code from the bundle's chunks alone, plus the packages kept out of it;
// and the bundle carries the same digest of the bootstrap's code as the unbundled modules,
// so the start's bootstrap check (db/bootstrap-state.ts) sees a code change either way.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { BRAIN_JS, runBrain, scratchConfigDir } from '../support/cli.js';
import { readDockerfile, instructions } from '../support/dockerfile.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

describe('the bundled CLI', () => {
  it('is what the bin, npm start and the image run', () => {
    expect(readFileSync(BRAIN_JS, 'utf8').split('\n').slice(0, 2)).toEqual(['#!/usr/bin/env node', expect.stringMatching(/^\/\/ claude-brain bundle/)]);
    expect(pkg.bin.brain).toBe('bin/brain');
    expect(pkg.scripts.start).toBe('bin/brain up');
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/bundle.mjs');
    const build = readDockerfile().find((s) => instructions(s, 'RUN').some((r) => /tsc -p tsconfig\.image\.json/.test(r.args)))!;
    const runs = instructions(build, 'RUN').map((r) => r.args);
    expect(runs.indexOf('node scripts/bundle.mjs')).toBeGreaterThan(runs.findIndex((r) => /tsc -p tsconfig\.image\.json/.test(r)));
    expect(instructions(readDockerfile().at(-1)!, 'ENTRYPOINT').at(-1)?.args).toBe('["node", "dist/cli/brain.js"]');
    // What bin/brain sets, set for the image's entrypoint.
    const env = instructions(readDockerfile().at(-1)!, 'ENV').map((e) => e.args).join(' ');
    expect(env).toMatch(/\bMALLOC_ARENA_MAX=2\b/);
    expect(env).toMatch(/\bMALLOC_TRIM_THRESHOLD_=131072\b/);
  });

  it("leaves out what Fastify requires only on demand (schema compilers, inject), which a server here never demands", () => {
    const chunks = join(PACKAGE_ROOT, 'dist', 'cli', 'bundle', 'chunks');
    const maps = readdirSync(chunks).filter((f) => f.endsWith('.cjs.map'));
    expect(maps.length).toBeGreaterThan(10);
    const sources = maps.flatMap((f) => (JSON.parse(readFileSync(join(chunks, f), 'utf8')) as { sources: string[] }).sources);
    expect(sources.filter((s) => s.includes('node_modules/fastify/')).length).toBeGreaterThan(10);
    // fast-json-stringify's serializer runtime stays: Fastify's error serializer uses it; its compiler does not.
    expect(sources.filter((s) => /node_modules\/(ajv|ajv-formats|light-my-request|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler)\/|node_modules\/fast-json-stringify\/index\.js/.test(s))).toEqual([]);
  });

  it('has no import() in its chunks, which the code cache compiles with no loader for one (cli/code-cache.ts)', async () => {
    const bundle = join(PACKAGE_ROOT, 'dist', 'cli', 'bundle');
    const files = [...readdirSync(bundle).filter((f) => f.endsWith('.cjs')).map((f) => join(bundle, f)), ...readdirSync(join(bundle, 'chunks')).filter((f) => f.endsWith('.cjs')).map((f) => join(bundle, 'chunks', f))];
    expect(files.length).toBeGreaterThan(10);
    const { parseAst } = await import('rolldown/parseAst');
    // A parse, not a text search: the offline embedder's thread source is a string with import() in it.
    const importCalls = (node: unknown): number => {
      if (!node || typeof node !== 'object') return 0;
      if (Array.isArray(node)) return node.reduce((n: number, c) => n + importCalls(c), 0);
      return ((node as { type?: string }).type === 'ImportExpression' ? 1 : 0) + Object.values(node).reduce((n: number, c) => n + importCalls(c), 0);
    };
    expect(importCalls(parseAst('x = import("y"); `import("z")`'))).toBe(1);
    expect(files.filter((f) => importCalls(parseAst(readFileSync(f, 'utf8'))) > 0).map((f) => relative(bundle, f))).toEqual([]);
  });

  it('compiles in the digest of the bootstrap code that the unbundled modules compute from their files', async () => {
    const { bootstrapCodeDigest } = (await import(join(PACKAGE_ROOT, 'scripts', 'bundle.mjs'))) as { bootstrapCodeDigest(): string };
    const fromDist = (await import(join(PACKAGE_ROOT, 'dist', 'db', 'bootstrap-state.js'))) as { bootstrapCodeDigest(): string };
    const digest = bootstrapCodeDigest();
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(fromDist.bootstrapCodeDigest()).toBe(digest);
    const chunks = join(PACKAGE_ROOT, 'dist', 'cli', 'bundle', 'chunks');
    const holding = readdirSync(chunks).filter((f) => f.endsWith('.cjs') && readFileSync(join(chunks, f), 'utf8').includes(digest));
    expect(holding.length).toBe(1);
  });
});

describe('[pglite] a command run through the bundle', () => {
  let home: string;
  let configDir: string;
  let trace: string;
  const env = () => ({ BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none', BRAIN_SUBJECT: 'homelab' });

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-bundle-'));
    configDir = scratchConfigDir();
    trace = join(home, 'trace.txt');
    const init = runBrain(['init'], env());
    expect(init.code, init.stderr).toBe(0);
  }, 180_000);
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('loads its code from dist/cli/ and only the packages kept out of the bundle from node_modules', () => {
    const r = spawnSync(process.execPath, ['--import', join(PACKAGE_ROOT, 'test/support/trace-reads.mjs'), BRAIN_JS, 'search', 'anything'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env(), BRAIN_TRACE_FILE: trace },
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const touched = existsSync(trace) ? [...new Set(readFileSync(trace, 'utf8').split('\n').filter((p) => p.endsWith('.js') || p.endsWith('.mjs') || p.endsWith('.cjs')))] : [];
    const dist = touched.filter((p) => p.startsWith(join(PACKAGE_ROOT, 'dist') + '/')).map((p) => relative(PACKAGE_ROOT, p));
    expect(dist.length).toBeGreaterThan(1);
    // The entry, and the two small modules it runs before the bundle loads.
    expect(dist.filter((p) => !['dist/cli/brain.js', 'dist/cli/code-cache.js', 'dist/cli/wasm-tiers.js'].includes(p) && !p.startsWith('dist/cli/bundle/'))).toEqual([]);
    expect(dist.filter((p) => p.startsWith('dist/cli/bundle/chunks/')).length).toBeGreaterThan(3);
    const packages = new Set(
      touched
        .filter((p) => p.includes('/node_modules/'))
        .map((p) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p.slice(p.lastIndexOf('/node_modules/')))![1]!),
    );
    // PGlite and its extensions; koffi, for the madvise calls on PGlite's memory as it opens (db/process-memory.ts).
    expect([...packages].filter((p) => !p.startsWith('@electric-sql/') && p !== 'koffi')).toEqual([]);
  });
});
