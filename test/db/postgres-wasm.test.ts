// Postgres's WebAssembly module (db/postgres-wasm.ts) is compiled on a worker thread and handed
// back to this one, where PGlite instantiates it: the module that comes back is a whole one, a
// worker that cannot compile is an error that names it, and the open falls back to compiling here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileOnWorker, compiledPostgres, wasmPath } from '../../db/postgres-wasm.js';

const wasm = (globalThis as unknown as { WebAssembly: { Module: { new (b: Uint8Array): object; exports(m: object): { name: string }[] } } }).WebAssembly;

describe('compiling Postgres on a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brain-wasm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hands back a compiled module of PGlite\'s Postgres, with its exports', async () => {
    const module = await compileOnWorker(wasmPath());
    expect(module).toBeInstanceOf(wasm.Module);
    const names = wasm.Module.exports(module as object).map((e) => e.name);
    expect(names.length).toBeGreaterThan(100);
    expect(names.filter((n) => n.startsWith('pgl_')).length).toBeGreaterThan(5);
  }, 60_000);

  it('a file that is no WebAssembly is refused, and a missing one too', async () => {
    const junk = join(dir, 'junk.wasm');
    writeFileSync(junk, 'not wasm');
    await expect(compileOnWorker(junk)).rejects.toThrow(/WebAssembly|magic/i);
    await expect(compileOnWorker(join(dir, 'missing.wasm'))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('compiles once per process: every open shares the module', async () => {
    const first = compiledPostgres();
    expect(compiledPostgres()).toBe(first);
    expect(await first).toBeInstanceOf(wasm.Module);
  }, 60_000);
});
