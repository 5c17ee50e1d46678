// A code cache for the bundled CLI on Node 20. Every start parses and compiles the chunks it
// loads again (about 2 MB before a server listens); Node 22.1 and later keep the compiled code
// between runs (module.enableCompileCache), Node 20 has no such cache. So the bundle is CommonJS
// (scripts/bundle.mjs), and its chunks are compiled here through vm.Script with V8's cached data
// from the last run: bytecode for the top level and for every function that run compiled. A
// chunk with no cached data, or cached data V8 rejected (another V8, other flags), is compiled
// from its source and its cached data written when the process exits, once, so the next start
// reads it. docs/performance.md, "A code cache on Node 20", has the figures.
//
// Where: the user's own cache directory (XDG_CACHE_HOME or ~/.cache), never the shared temporary
// folder, since cached data is code this process runs. One folder per build, Node and flags: the
// entry chunk's name carries a hash of the build (rolldown's content hashes reach it through the
// chunk names it imports), and V8 refuses data made under other flags, so commands run with
// different flags (bin/brain gives the servers a smaller young generation; one-shot commands
// compile WebAssembly on Liftoff only, set before the bundle loads) each keep their own.
// Folders of other builds untouched for a week are removed when a new one is made.
//
// Any failure (no home, a read-only disk, a rejected file) only means compiling from source, as
// without the cache. BRAIN_CODE_CACHE=off turns it off (for measuring).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import vm from 'node:vm';

/** What a process's cache did: chunks compiled from cached data, from source with none, from source because V8 refused it; files written. */
export interface CodeCacheStats {
  hits: number;
  misses: number;
  rejected: number;
  written: number;
}

export interface CodeCache {
  /** Where this build's cached data lives, or undefined when the cache is off (or Node keeps its own). */
  readonly dir: string | undefined;
  readonly stats: CodeCacheStats;
  /** Writes the cached data of every chunk compiled from source so far (also run at exit). */
  flush(): void;
}

/** Node's CommonJS loader, as far as this file uses it (internal, stable since Node 12). */
interface LoaderModule {
  exports: unknown;
  require(id: string): unknown;
}
interface Loader {
  prototype: { _compile(this: LoaderModule, content: string, filename: string): unknown };
  _resolveFilename(request: string, parent: LoaderModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: LoaderModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}

const STALE_MS = 7 * 24 * 3600 * 1000;
// The wrapper Node puts around a CommonJS module, on a line of its own so that line and column
// numbers in stack traces and source maps stay those of the file (lineOffset -1).
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAP_TAIL = '\n})';

/** The folder for one build under this Node and these flags. */
export function cacheDirFor(root: string, build: string, v8Flags: string, env: NodeJS.ProcessEnv = process.env): string {
  const flags = createHash('sha256')
    .update(`${process.version}\0${process.arch}\0${process.execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}\0${v8Flags}`)
    .digest('hex')
    .slice(0, 12);
  return join(root, `${build}-${process.version}-${flags}`);
}

/** The user's cache directory for claude-brain's compiled code, or undefined with no home. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : undefined);
  return base ? join(base, 'claude-brain', 'code') : undefined;
}

function pruneOtherBuilds(root: string, keep: string): void {
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removed it, or it is not ours to remove: leave it.
    }
  }
}

/**
 * Compiles the CommonJS files under `bundleDir` with cached data from `dir` from now on. On a
 * Node with its own compile cache, turns that on instead and returns a cache with no folder.
 * `v8Flags` names the flags this process set at run time before any chunk loads (the WebAssembly
 * tiers, cli/wasm-tiers.ts): V8 refuses data made under other flags, so each set has its folder.
 */
export function installCodeCache(bundleDir: string, build: string, v8Flags = '', env: NodeJS.ProcessEnv = process.env): CodeCache {
  const stats: CodeCacheStats = { hits: 0, misses: 0, rejected: 0, written: 0 };
  const native = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
  const root = cacheRoot(env);
  if (env.BRAIN_CODE_CACHE === 'off' || native || !root) {
    if (env.BRAIN_CODE_CACHE !== 'off') native?.();
    return { dir: undefined, stats, flush: () => undefined };
  }
  const dir = cacheDirFor(root, build, v8Flags, env);
  const prefix = bundleDir.endsWith(sep) ? bundleDir : bundleDir + sep;
  const pending: { script: vm.Script; file: string }[] = [];
  const Loader = module as unknown as Loader;
  const compile = Loader.prototype._compile;

  Loader.prototype._compile = function (this: LoaderModule, content: string, filename: string) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const file = join(dir, `${basename(filename)}.v8`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      // Not cached yet.
    }
    const script = new vm.Script(WRAP_HEAD + content + WRAP_TAIL, {
      filename,
      lineOffset: -1,
      cachedData,
      // No importModuleDynamically: Node 20 warns that its default loader for vm is experimental.
      // The bundle has no import() (rolldown turns its own into require; test/cli/bundle.test.ts).
    });
    if (!cachedData) stats.misses++;
    else if (script.cachedDataRejected) stats.rejected++;
    else stats.hits++;
    if (!cachedData || script.cachedDataRejected) pending.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(this, Loader), this, filename, dirname(filename));
  };

  const flush = () => {
    if (pending.length === 0) return;
    try {
      // A folder made now is a new build (or Node, or flags): the time to prune the others.
      if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) pruneOtherBuilds(root, dir);
      for (const { script, file } of pending.splice(0)) {
        // Written whole, then renamed: a reader sees the old file or the new one, never half.
        const partial = `${file}.${process.pid}`;
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, file);
        stats.written++;
      }
    } catch {
      // No cache this time: the next start compiles from source, as without one.
    }
  };
  process.once('exit', flush);
  return { dir, stats, flush };
}

/** The `require` a CommonJS module gets, for a module compiled here. */
function requireFor(mod: LoaderModule, Loader: Loader) {
  const require = (id: string) => mod.require(id);
  const resolve = (request: string, options?: unknown) => Loader._resolveFilename(request, mod, false, options);
  resolve.paths = (request: string) => Loader._resolveLookupPaths(request, mod);
  return Object.assign(require, { resolve, main: undefined, extensions: Loader._extensions, cache: Loader._cache });
}
