// Postgres itself, the WebAssembly module PGlite runs, compiled once per process and kept: a
// brain woken from its idle sleep (db/embedded.ts) does not compile it again, and a command that
// will open the brain can start the compile early, while its other modules load. Its own small
// module, so starting the compile loads nothing else.
//
// The compile runs on a worker thread, which hands the module back (a WebAssembly.Module is
// shared between threads, not copied). V8 compiles the functions on background threads either
// way, but WebAssembly.compile first decodes the 9 MB module on the calling thread: 43-47 ms of
// the main thread on this 2-core VM, in the middle of a server's start. From a worker the main
// thread is held 3-8 ms (making the worker) and the module is back in about 175 ms instead of 80,
// long before an open needs it (docs/performance.md, "A start's order").
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PGliteOptions } from '@electric-sql/pglite';

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
/** The WebAssembly global (the project's TypeScript libraries leave out the DOM's declarations of it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

/** The worker's whole program (CommonJS, evaluated): read the file it is given, compile it, post the module. */
const COMPILE_ON_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
WebAssembly.compile(require('node:fs').readFileSync(workerData)).then((m) => parentPort.postMessage(m));
`;

let compiling: Promise<WasmModule> | undefined;

/** PGlite's own pglite.wasm, beside its modules. */
export function wasmPath(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm');
}

/** Compiles on a worker thread; rejects if the thread fails or ends without a module. */
export function compileOnWorker(path: string): Promise<WasmModule> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COMPILE_ON_WORKER, { eval: true, workerData: path, stdout: true });
    // stdout: true keeps anything the thread prints off stdout, which carries the protocol under
    // `brain serve --stdio`. A process that ends before the module is back does not wait for it.
    worker.unref();
    worker.once('message', (module: WasmModule) => resolve(module));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the thread compiling Postgres ended (exit code ${code}) before it was compiled`)));
  });
}

/** Compiles on this thread: where a worker cannot start or failed. */
async function compileHere(path: string): Promise<WasmModule> {
  return wasm.compile(await readFile(path));
}

/** The compiled module, compiling it on the first call; a failed compile is tried again by the next call. */
export function compiledPostgres(): Promise<WasmModule> {
  if (!compiling) {
    const path = wasmPath();
    let started: Promise<WasmModule>;
    try {
      started = compileOnWorker(path).catch(() => compileHere(path));
    } catch {
      started = compileHere(path); // no worker could be made (a thread limit)
    }
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
