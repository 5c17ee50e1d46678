#!/usr/bin/env node
// Compiles dist/ only when it is out of date: run by `npm start` (prestart), `npm install`
// (prepare) and the test setup. The whole TypeScript build takes a minute or more on a
// 2-core machine, and even `tsc --incremental` spends seconds loading itself and the type
// graph to find nothing to do; comparing file times takes milliseconds.
//
// dist/ is out of date when a source (.ts under the folders tsconfig.build.json compiles) has
// no compiled .js, or is newer than it, or a tsconfig is newer than dist/cli/brain.js, or the
// last build through this script failed (tsc still writes the JavaScript when types are wrong,
// so without that mark the next start would run code that did not typecheck). Any build
// counts, whether `npm run build`, this script or the test setup: tsc rewrites every output.
// After tsc, the CLI is bundled (scripts/bundle.mjs); dist/cli/brain.js without the bundle's
// mark (tsc alone ran, or the bundle failed) is bundled again, which takes seconds, not a build.
// Plain JavaScript, because it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_MARK, bundle } from './bundle.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const FAILED = join(DIST, '.build-failed');
const ENTRY = join(DIST, 'cli', 'brain.js');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function sources(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) sources(path, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Why dist/ must be rebuilt, or undefined when it is current. */
export function staleReason() {
  if (existsSync(FAILED)) return 'the last build failed';
  const entry = mtime(ENTRY);
  if (entry === undefined) return 'dist/ has not been built';
  for (const c of CONFIGS) if ((mtime(join(ROOT, c)) ?? 0) > entry) return `${c} changed`;
  const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'));
  for (const folder of build.include ?? []) {
    const dir = join(ROOT, folder);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    for (const src of sources(dir)) {
      const out = join(DIST, relative(ROOT, src)).replace(/\.ts$/, '.js');
      const built = mtime(out);
      if (built === undefined) return `${relative(ROOT, src)} is not compiled`;
      if ((mtime(src) ?? 0) > built) return `${relative(ROOT, src)} changed`;
    }
  }
  return undefined;
}

/** True when dist/cli/brain.js is the bundle (its second line is the bundle's mark), made by the current scripts/bundle.mjs. */
export function isBundled() {
  try {
    if ((mtime(join(ROOT, 'scripts', 'bundle.mjs')) ?? 0) > (mtime(ENTRY) ?? 0)) return false;
    return readFileSync(ENTRY, 'utf8').slice(0, 200).split('\n')[1]?.startsWith(BUNDLE_MARK) === true;
  } catch {
    return false;
  }
}

/** Bundles the compiled CLI; without rolldown (installed without devDependencies) the unbundled one runs. */
async function bundleCli() {
  try {
    await import('rolldown');
  } catch {
    process.stderr.write('claude-brain: rolldown is not installed, so the CLI runs unbundled (slower to start); npm install with dev dependencies bundles it\n');
    return 0;
  }
  const started = performance.now();
  try {
    await bundle();
  } catch (error) {
    mkdirSync(DIST, { recursive: true });
    writeFileSync(FAILED, `the bundle failed at ${new Date().toISOString()}: ${error?.message ?? error}\n`);
    process.stderr.write(`claude-brain: bundling the CLI failed: ${error?.stack ?? error}\n`);
    return 1;
  }
  process.stderr.write(`claude-brain: bundled the CLI in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return 0;
}

async function main() {
  const started = performance.now();
  const why = process.argv.includes('--always') ? 'asked to' : staleReason();
  if (!why) return isBundled() ? 0 : bundleCli();
  let tsc;
  try {
    tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  } catch {
    tsc = undefined;
  }
  if (!tsc || !existsSync(tsc)) {
    // Installed without devDependencies: run what was built, if anything was.
    if (existsSync(ENTRY)) {
      process.stderr.write(`claude-brain: ${why}, but TypeScript is not installed (npm install without --omit=dev builds it); starting from the existing dist/\n`);
      return 0;
    }
    process.stderr.write('claude-brain: dist/ is not built and TypeScript is not installed; run `npm install` (with dev dependencies), then `npm start`\n');
    return 1;
  }
  process.stderr.write(`claude-brain: building dist/ (${why}; this takes about a minute)...\n`);
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    mkdirSync(DIST, { recursive: true });
    writeFileSync(FAILED, `tsc exited with ${r.status ?? r.signal} at ${new Date().toISOString()}\n`);
    process.stderr.write('claude-brain: the build failed (see above); fix the errors and run it again\n');
    return 1;
  }
  rmSync(FAILED, { force: true });
  process.stderr.write(`claude-brain: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return bundleCli();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
