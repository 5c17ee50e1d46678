#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js and everything it imports, tsc's output) into
// dist/cli/bundle/ (CommonJS, for the code cache: cli/code-cache.ts), and writes dist/cli/brain.js,
// the entry that loads it, so a start loads a few dozen files instead of about 900: on Node 20,
// which keeps no compiled code between runs, resolving, reading and compiling each module file
// was most of the time before a server listened (docs/clients.md, start time).
// Each command stays its own chunk, loaded only when it runs, as in the unbundled build.
//
// Left out of the bundle, loaded from node_modules as before: PGlite and its extensions (they
// read their .wasm, .data and .tar.gz files next to their own modules) and the offline model
// (its thread imports it by the path the main thread resolves), and koffi (a native module with
// its prebuilt binaries, db/process-memory.ts). Left out too, because Fastify requires them only
// when it builds a route's JSON-schema validator or serializer, which no route here has, or for
// app.inject(), which only the tests call: @fastify/ajv-compiler and
// @fastify/fast-json-stringify-compiler (Ajv, fast-json-stringify, fast-uri with them) and
// light-my-request. In the bundle they were never run but parsed on every start: the chunk a
// server loads before it listens went from 1,064 to 726 kB, and listening from a median of 427
// to 395 ms (six alternating starts each, 7,500-page brain, 3 December 2026). Were one
// needed, it loads from node_modules as the packages above do. dist/cli/brain.js written by tsc
// alone is a one-line import of the unbundled dispatcher, which works too, only slower.
//
// Run after tsc (scripts/build-if-stale.mjs does both); plain JavaScript, like the build check.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli');
const INPUT = join(CLI, 'main.js');
const ENTRY = join(CLI, 'brain.js');
/** The bundle's chunks, CommonJS, which dist/cli/brain.js loads. */
const BUNDLE_DIR = join(CLI, 'bundle');
/** The first line after the shebang of a bundled dist/cli/brain.js (scripts/build-if-stale.mjs looks for it). */
export const BUNDLE_MARK = '// claude-brain bundle';
/** Packages Fastify requires only on demand, none of which a server here ever demands (see above). */
export const LAZY_FASTIFY_PARTS = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request'];

/**
 * What db/bootstrap-state.ts hashes as "the bootstrap's own code" when it runs from dist/:
 * the compiled modules that decide what the bootstrap does. In the bundle they are no files of
 * their own, so the digest is taken here, from the same files, and compiled into the bundle.
 */
export function bootstrapCodeDigest(dir = join(ROOT, 'dist', 'db')) {
  const h = createHash('sha256');
  for (const m of ['bootstrap', 'migrate', 'sync-deny-list', 'bootstrap-state']) {
    const file = join(dir, `${m}.js`);
    h.update(`${m}\0${existsSync(file) ? readFileSync(file, 'utf8') : 'missing'}\0`);
  }
  return h.digest('hex');
}

export async function bundle() {
  if (!existsSync(INPUT)) throw new Error(`${INPUT} is missing: compile first (tsc -p tsconfig.build.json)`);
  const { rolldown } = await import('rolldown');
  // dist/cli/chunks and brain.js.map: an earlier layout (an ES-module bundle), gone so nothing loads it by mistake.
  for (const old of [BUNDLE_DIR, join(CLI, 'chunks'), join(CLI, 'brain.js.map')]) rmSync(old, { recursive: true, force: true });
  const build = await rolldown({
    input: { brain: INPUT },
    platform: 'node',
    external: [/^@electric-sql\//, /^@energetic-ai\//, 'pg-native', 'koffi', ...LAZY_FASTIFY_PARTS],
    transform: { define: { __BOOTSTRAP_CODE_DIGEST__: JSON.stringify(bootstrapCodeDigest()) } },
    logLevel: 'warn',
  });
  let entry;
  try {
    const { output } = await build.write({
      dir: BUNDLE_DIR,
      // CommonJS, so that cli/code-cache.ts can compile each chunk with V8's cached data from the
      // last run (Node 20 keeps no compiled code between runs, and has no hook to give an ES
      // module cached data). The entry's name carries the build's hash: the cache is kept per build.
      format: 'cjs',
      entryFileNames: '[name]-[hash].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
      sourcemap: true,
      // Whitespace and comments out, local names shortened: what a server loads before it
      // listens went from 4.0 to 2.4 MB, and importing the two largest chunks from 276 to
      // 249 ms (docs/performance.md, "A start's order"). Not compressed (no rewriting of the
      // code itself), and function and class names kept, so stack traces and error names read
      // as before; `node --enable-source-maps` maps their positions back to the compiled files.
      minify: { compress: false, mangle: { keepNames: true } },
      keepNames: true,
    });
    entry = output.find((o) => o.type === 'chunk' && o.isEntry)?.fileName;
  } finally {
    await build.close();
  }
  if (!entry) throw new Error('rolldown wrote no entry chunk');
  const buildId = /-([^-.]+)\.cjs$/.exec(entry)?.[1];
  if (!buildId) throw new Error(`the entry chunk ${entry} has no hash in its name`);
  writeFileSync(
    ENTRY,
    [
      '#!/usr/bin/env node',
      `${BUNDLE_MARK} (scripts/bundle.mjs): built from dist/cli/main.js`,
      '// The bundle is CommonJS in dist/cli/bundle/, loaded through the code cache (cli/code-cache.ts).',
      "import { createRequire } from 'node:module';",
      "import { fileURLToPath } from 'node:url';",
      "import { installCodeCache } from './code-cache.js';",
      "import { chooseWasmTiers, wasmTiersFor } from './wasm-tiers.js';",
      '// The WebAssembly tiers are a V8 flag, and V8 keeps cached data per set of flags: set before any chunk compiles.',
      'chooseWasmTiers(process.argv[2]);',
      `installCodeCache(fileURLToPath(new URL('./bundle/', import.meta.url)), ${JSON.stringify(buildId)}, wasmTiersFor(process.argv[2]));`,
      `createRequire(import.meta.url)(${JSON.stringify(`./bundle/${entry}`)});`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  await bundle();
  process.stderr.write(`claude-brain: bundled dist/cli/brain.js in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
