// Giving an idle embedded brain's memory back to the operating system. db/embedded.ts calls
// giveMemoryBack() right after closing PGlite for a sleep, and trimFreedMemory() (step 2 alone)
// when an awake brain has been idle a while. Two steps, each skipped where it cannot run:
//
// 1. A full garbage collection. The closed PGlite's memory (its page cache and Postgres's heap,
//    hundreds of MB) is one WebAssembly memory object, which V8 frees only when a full collection
//    finds it unreachable; an idle server allocates next to nothing, so without this none would
//    come for a long time and the memory would stay.
// 2. glibc's malloc_trim(0), through koffi (a foreign-function library shipped with prebuilt
//    binaries, loaded only here). V8's optimising compiler, tiering PGlite's Postgres up while it
//    ran, allocated and freed hundreds of MB in 32 kB blocks; glibc gives back only the free
//    memory at the top of each heap, and long-lived blocks in between kept the rest resident:
//    60-70 MB of an asleep server (docs/performance.md, "Memory and the idle brain"). malloc_trim
//    hands every free page back. Other C libraries (macOS, musl) have no such function and are
//    left alone.
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryGiveBack {
  /** Whether a full garbage collection ran. */
  collected: boolean;
  /** Whether glibc's malloc_trim ran (false off glibc, or if koffi could not load). */
  trimmed: boolean;
}

export function giveMemoryBack(): MemoryGiveBack {
  return { collected: collectGarbage(), trimmed: trimFreedMemory() };
}

/** A full garbage collection now, through V8's own `gc`, made reachable for this one call. */
function collectGarbage(): boolean {
  try {
    v8.setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    return true;
  } catch {
    // Not this V8: the memory goes back at the next collection instead.
    return false;
  }
}

let mallocTrim: ((pad: number) => number) | null | undefined;

/** glibc's malloc_trim(0) alone (an awake brain's PGlite is still in use, so no collection). Whether it ran. */
export function trimFreedMemory(): boolean {
  mallocTrim ??= loadMallocTrim();
  if (!mallocTrim) return false;
  try {
    mallocTrim(0);
    return true;
  } catch {
    return false;
  }
}

/** glibc's malloc_trim, or null where there is none (not Linux; musl has no libc.so.6; koffi missing). */
function loadMallocTrim(): ((pad: number) => number) | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch {
    return null;
  }
}
