// `npm start` and `npm install` build dist/ only when it is out of date
// (scripts/build-if-stale.mjs): checked on a small project of its own, so the test runs tsc
// in seconds and can change sources freely; and on this checkout, where the test setup has
// just built dist/, a second `npm start`'s prestart must not run tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';

describe('scripts/build-if-stale.mjs', () => {
  let dir: string;
  const run = () => spawnSync(process.execPath, [join(dir, 'scripts', 'build-if-stale.mjs')], { cwd: dir, encoding: 'utf8' });
  /** Rewrites src/a.ts, its compiled file dated before it (as when an editor saves a second after a build). */
  const source = (text: string) => {
    writeFileSync(join(dir, 'src', 'a.ts'), text);
    const out = join(dir, 'dist', 'src', 'a.js');
    if (existsSync(out)) utimesSync(out, new Date(0), new Date(0));
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brain-build-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src'));
    for (const script of ['build-if-stale.mjs', 'bundle.mjs']) copyFileSync(join(PACKAGE_ROOT, 'scripts', script), join(dir, 'scripts', script));
    // TypeScript resolves from the project, as in a checkout after npm install.
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: '.', types: ['node'] } }));
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src', 'cli'] }));
    mkdirSync(join(dir, 'cli'));
    // As in this project: brain.ts imports the dispatcher, which the bundle is built from.
    writeFileSync(join(dir, 'cli', 'main.ts'), "import { a } from '../src/a.js';\nconsole.log(a);\n");
    writeFileSync(join(dir, 'cli', 'brain.ts'), "import './main.js';\n");
    // The two modules the bundle's entry runs before it loads the bundle (scripts/bundle.mjs).
    for (const file of ['code-cache.ts', 'wasm-tiers.ts']) copyFileSync(join(PACKAGE_ROOT, 'cli', file), join(dir, 'cli', file));
    source('export const a: number = 1;\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds when dist/ is missing, then not again until a source changes', { timeout: 120_000 }, () => {
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('building dist/ (dist/ has not been built');
    expect(first.stderr).toContain('bundled the CLI');
    const entry = join(dir, 'dist', 'cli', 'brain.js');
    expect(readFileSync(entry, 'utf8').split('\n')[1]).toMatch(/^\/\/ claude-brain bundle/);
    expect(spawnSync(process.execPath, [entry], { encoding: 'utf8' }).stdout).toBe('1\n');
    const built = statSync(entry).mtimeMs;

    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toBe('');
    expect(statSync(join(dir, 'dist', 'cli', 'brain.js')).mtimeMs).toBe(built);

    source('export const a: number = 2;\n');
    const third = run();
    expect(third.stderr).toContain('building dist/ (src/a.ts changed');
    expect(readFileSync(join(dir, 'dist', 'src', 'a.js'), 'utf8')).toContain('= 2');
    expect(spawnSync(process.execPath, [join(dir, 'dist', 'cli', 'brain.js')], { encoding: 'utf8' }).stdout).toBe('2\n');
  });

  it('tsc alone leaves the unbundled entry, which works; the next check bundles it without a build', { timeout: 120_000 }, () => {
    const entry = join(dir, 'dist', 'cli', 'brain.js');
    spawnSync(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: dir });
    expect(readFileSync(entry, 'utf8')).toContain("import './main.js'");
    expect(spawnSync(process.execPath, [entry], { encoding: 'utf8' }).stdout).toBe('2\n');
    const r = run();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('building dist/');
    expect(r.stderr).toContain('bundled the CLI');
    expect(readFileSync(entry, 'utf8').split('\n')[1]).toMatch(/^\/\/ claude-brain bundle/);
  });

  it('a new source and a changed tsconfig rebuild; a failed build is tried again until it passes', { timeout: 180_000 }, () => {
    writeFileSync(join(dir, 'src', 'b.ts'), 'export const b = 1;\n');
    expect(run().stderr).toContain('src/b.ts is not compiled');

    source('export const a: number = "not a number";\n');
    const failed = run();
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('the build failed');
    expect(existsSync(join(dir, 'dist', '.build-failed'))).toBe(true);
    // tsc wrote the JavaScript anyway: without the mark, the next start would run code that did not typecheck.
    expect(run().stderr).toContain('building dist/ (the last build failed');

    source('export const a: number = 3;\n');
    expect(run().status).toBe(0);
    expect(existsSync(join(dir, 'dist', '.build-failed'))).toBe(false);

    utimesSync(join(dir, 'dist', 'cli', 'brain.js'), new Date(0), new Date(0));
    expect(run().stderr).toContain('tsconfig.json changed');
    expect(run().stderr).toBe('');
  });
});

describe('npm start on this checkout', () => {
  it('a second start runs no tsc: dist/ was built by the test setup and prestart leaves it alone', () => {
    const entry = join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js');
    const before = statSync(entry).mtimeMs;
    const started = performance.now();
    const r = spawnSync('npm', ['run', '-s', 'prestart'], { cwd: PACKAGE_ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
    const ms = performance.now() - started;
    expect(r.status, r.stderr).toBe(0);
    // A source edited since the setup's build (someone working in this checkout) would rebuild, and say which.
    expect(r.stderr, 'prestart rebuilt dist/').not.toContain('building dist/');
    expect(statSync(entry).mtimeMs).toBe(before);
    console.log(`prestart with dist/ current: ${Math.round(ms)} ms (npm included)`);
  });

  it('package.json runs the check before start and on install, never tsc directly', () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prestart).toBe('node scripts/build-if-stale.mjs');
    expect(pkg.scripts.prepare).toBe('node scripts/build-if-stale.mjs');
    expect(pkg.scripts.start).toBe('bin/brain up');
  });
});
