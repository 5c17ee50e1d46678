// PGlite's WebAssembly memory, reached through PGlite's public extension API: each extension's
// setup receives the Emscripten options PGlite is about to start Postgres with, and the memory
// PGlite made for them (`wasmMemory`) is among them, not yet touched. The brain needs it twice:
//
// - Before Postgres starts, it is made quick to zero (prepareForZeroing, db/process-memory.ts):
//   Postgres zeroes its whole page cache at start, and on this machine first touches were most of
//   opening a big brain (in-process, a 308 MB cache: 1.5-2.5 s against 0.6-0.75 s with a 16 MB
//   one; 0.63-1.15 s with the memory prepared). For a cache of POPULATE_MIN_CACHE_MB or more (a
//   server's) the memory starts big enough to hold it (PGlite's `initialMemory`) and is populated
//   in huge pages at once; a smaller one (a one-shot command's, an import's) is only advised for
//   huge pages, so nothing it never touches becomes resident. Once PGlite is open the memory goes
//   back to normal pages (settlePGliteMemory).
// - An idle brain hands its untouched pages back (dropZeroPages, db/embedded.ts).
import type { Extension, PGlite } from '@electric-sql/pglite';
import { endHugePages, prepareForZeroing, type ZeroingPrep } from './process-memory.js';

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

const MB = 1024 * 1024;
/** The most PGlite's memory can grow to: PGlite declares 32,768 WebAssembly pages of 64 kB. */
const PGLITE_MAX_MEMORY_BYTES = 32_768 * 65_536;
/** PGlite's own initial memory, the least its Postgres module accepts. */
const PGLITE_INITIAL_MEMORY_BYTES = 128 * MB;
/** Postgres's memory besides the cache at start (catalog caches, the first queries), with room to spare. */
const BESIDES_CACHE_BYTES = 64 * MB;
/** The cache from which PGlite's memory is populated at once: the import's and one-shot commands' caches (16-32 MB) are not. */
export const POPULATE_MIN_CACHE_MB = 64;

interface Prepared {
  memory: WasmMemory;
  prep: ZeroingPrep | null;
}

const prepared = new WeakMap<object, Prepared>();

function isWasmMemory(value: unknown): value is WasmMemory {
  return typeof value === 'object' && value !== null && (value as { buffer?: unknown }).buffer instanceof ArrayBuffer;
}

/** PGlite.create's options for a brain with a `cacheMb` cache: its initial memory and the extension that prepares it. */
export function pgliteMemoryOptions(cacheMb: number): { initialMemory: number; extension: Extension } {
  const populate = cacheMb >= POPULATE_MIN_CACHE_MB;
  const wanted = Math.ceil((cacheMb * MB + BESIDES_CACHE_BYTES) / (2 * MB)) * 2 * MB;
  return {
    initialMemory: populate ? Math.min(PGLITE_MAX_MEMORY_BYTES, Math.max(PGLITE_INITIAL_MEMORY_BYTES, wanted)) : PGLITE_INITIAL_MEMORY_BYTES,
    extension: {
      name: 'claude-brain-memory',
      setup: async (pg, emscriptenOpts: { wasmMemory?: unknown } | undefined) => {
        const memory = emscriptenOpts?.wasmMemory;
        if (isWasmMemory(memory)) prepared.set(pg, { memory, prep: prepareForZeroing(memory.buffer, PGLITE_MAX_MEMORY_BYTES, populate) });
        return {};
      },
    },
  };
}

/**
 * Normal pages again for a PGlite that has started: the cache then grows page by page with what
 * is read, and the pages dropZeroPages hands back are not gathered into huge ones again by
 * khugepaged. The huge pages the start made stay until they are handed back.
 */
export function settlePGliteMemory(pg: PGlite): void {
  const p = prepared.get(pg);
  if (p?.prep?.hugePages) endHugePages(p.memory.buffer, PGLITE_MAX_MEMORY_BYTES);
}

/** How the memory was prepared before Postgres ran (null where it could not be; undefined: not opened with pgliteMemoryOptions). */
export function zeroingPrepOf(pg: PGlite): ZeroingPrep | null | undefined {
  return prepared.get(pg)?.prep;
}

/** The memory as bytes, as it is now (it grows); undefined for a PGlite opened without pgliteMemoryOptions. */
export function wasmMemoryOf(pg: PGlite): Uint8Array | undefined {
  const p = prepared.get(pg);
  return p ? new Uint8Array(p.memory.buffer) : undefined;
}
