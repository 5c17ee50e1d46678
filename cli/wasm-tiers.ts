// How V8 compiles PGlite's WebAssembly (Postgres itself) for a command. By default each
// function starts on the baseline compiler (Liftoff) and is recompiled by the optimising one
// (TurboFan) on background threads once it runs hot. Opening the brain runs a lot of
// Postgres at once, so a short command sets off hundreds of those recompilations: on a
// 2-core machine they take the cores its own work needs, and Node waits for every one still
// running before the process may exit. Measured here (2026-12-01, load 5-7): PGlite open,
// one query and close 1.0-1.7 s with Liftoff only against 1.5-3.3 s with both, the first
// search 150-250 ms against 1.1-1.3 s. So a command that opens the brain, answers and exits
// runs on Liftoff only. Servers and long batch commands keep the optimising compiler: over
// many queries its code is the faster one (bench/search/latency.js at 10k topics, load 3-5:
// keyword p50 28.5 ms against 45.7 ms on Liftoff only, hybrid 42.1 against 64.1 ms, the
// load 56 s against 75 s).
import v8 from 'node:v8';

/** Commands that run long enough for optimised WebAssembly to pay back its compile time. */
export const LONG_RUNNING: ReadonlySet<string> = new Set(['serve', 'up', 'view', 'init', 'migrate', 'subjects', 'import', 'export', 'embed', 'lint', 'backup', 'restore', 'pipe', 'text-search']);

export function wasmTiersFor(command: string | undefined): 'liftoff only' | 'default' {
  return command === undefined || LONG_RUNNING.has(command) ? 'default' : 'liftoff only';
}

/** Before anything compiles PGlite's module: the flag is read when it is compiled. */
export function chooseWasmTiers(command: string | undefined): void {
  if (wasmTiersFor(command) === 'liftoff only') v8.setFlagsFromString('--liftoff-only');
}
