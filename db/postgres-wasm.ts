// Postgres itself, the WebAssembly module PGlite runs, compiled once per process and kept: a
// brain woken from its idle sleep (db/embedded.ts) does not compile it again, and a command that
// will open the brain can start the compile early (compilation runs on V8's background threads)
// while its other modules load. Its own small module, so starting the compile loads nothing else.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
/** The WebAssembly global (the project's TypeScript libraries leave out the DOM's declarations of it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

let compiling: Promise<WasmModule> | undefined;

/** The compiled module, compiling it on the first call; a failed compile is tried again by the next call. */
export function compiledPostgres(): Promise<WasmModule> {
  if (!compiling) {
    const started = readFile(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm')).then((bytes) => wasm.compile(bytes));
    started.catch(() => {
      if (compiling === started) compiling = undefined;
    });
    compiling = started;
  }
  return compiling;
}

/** Starts the compile now, for a command about to open the brain; never throws (the open reports a failure). */
export function startCompilingPostgres(): void {
  compiledPostgres().catch(() => undefined);
}
