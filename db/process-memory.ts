// Giving an idle embedded brain's memory back to the operating system. db/embedded.ts calls
// giveMemoryBack() right after closing PGlite for a sleep, and, when an awake brain has been idle
// a while, trimFreedMemory() (step 2 alone) and dropZeroPages() (step 3). Each step is skipped
// where it cannot run:
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
// 3. The untouched pages of an open PGlite's memory. Postgres zeroes its page cache when it
//    starts, so the whole cache was resident from the first second (RSS about 180 MB plus the
//    cache) although a brain reads only the pages it needs. A page of the WebAssembly memory that
//    holds only zeros is handed back with madvise(MADV_DONTNEED): the kernel maps a fresh zero
//    page in its place the next time it is read or written, so what PGlite sees cannot change.
//    Only this thread runs PGlite, so nothing writes a page between the check and the madvise.
//
// And one step for the start (prepareForZeroing, called by db/pglite-memory.ts before Postgres
// runs): zeroing the page cache faults in every 4 kB page of it, and on this machine (a
// Firecracker VM) first touches are slow: zeroing 372 MB of fresh memory took 1.0-1.6 s.
// Advised for transparent huge pages and populated in one madvise(MADV_POPULATE_WRITE), the same
// memory took 19-25 ms when the VM's host had it at hand and 0.6-0.8 s when the host had to
// provide it afresh, and Postgres's zeroing afterwards 16-19 ms (docs/performance.md).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
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
    // And back: V8 keys cached code by its flags, so a server that wrote the code cache
    // (cli/code-cache.ts) at exit after a sleep would write data the next start refuses.
    v8.setFlagsFromString('--no-expose-gc');
    return true;
  } catch {
    // Not this V8: the memory goes back at the next collection instead.
    return false;
  }
}

interface Libc {
  mallocTrim(pad: number): number;
  madvise(addr: bigint, length: number, advice: number): number;
  pageSize: number;
  address(view: Uint8Array): bigint;
}

let libc: Libc | null | undefined;

/** glibc's malloc_trim(0) alone (an awake brain's PGlite is still in use, so no collection). Whether it ran. */
export function trimFreedMemory(): boolean {
  libc ??= loadLibc();
  if (!libc) return false;
  try {
    libc.mallocTrim(0);
    return true;
  } catch {
    return false;
  }
}

const MADV_DONTNEED = 4;
const MADV_HUGEPAGE = 14;
const MADV_NOHUGEPAGE = 15;
const MADV_POPULATE_WRITE = 23;

/** How a fresh memory was made ready: whether each madvise was taken. */
export interface ZeroingPrep {
  hugePages: boolean;
  populated: boolean;
}

/**
 * Makes a fresh WebAssembly memory (nothing written to it yet) quick to zero: the `reservedBytes`
 * from its start (V8 reserves a memory's whole maximum up front, so the range stays the same as
 * it grows) advised for transparent huge pages, then its current bytes populated, the kernel
 * faulting them in 2 MB at a time. Only where the kernel hands out huge pages on advice (THP
 * `always` or `madvise`): populated as 4 kB pages it gained nothing here. Null off glibc on Linux
 * or without koffi.
 */
export function prepareForZeroing(buffer: ArrayBuffer, reservedBytes: number, populate: boolean): ZeroingPrep | null {
  libc ??= loadLibc();
  if (!libc || buffer.byteLength === 0 || !hugePagesOnAdvice()) return null;
  try {
    const start = libc.address(new Uint8Array(buffer));
    if (start % BigInt(libc.pageSize) !== 0n) return null;
    const hugePages = libc.madvise(start, Math.max(reservedBytes, buffer.byteLength), MADV_HUGEPAGE) === 0;
    // Linux 5.14 and later; an older kernel refuses the advice and the zeroing faults as before.
    const populated = hugePages && populate && libc.madvise(start, buffer.byteLength, MADV_POPULATE_WRITE) === 0;
    return { hugePages, populated };
  } catch {
    return null;
  }
}

/** Normal pages again for the range prepareForZeroing advised; whether the advice was taken. */
export function endHugePages(buffer: ArrayBuffer, reservedBytes: number): boolean {
  libc ??= loadLibc();
  if (!libc || buffer.byteLength === 0) return false;
  try {
    return libc.madvise(libc.address(new Uint8Array(buffer)), Math.max(reservedBytes, buffer.byteLength), MADV_NOHUGEPAGE) === 0;
  } catch {
    return false;
  }
}

let thpOnAdvice: boolean | undefined;

/** Whether transparent huge pages are on for advised memory (`[always]` or `[madvise]`, not `[never]`). */
function hugePagesOnAdvice(): boolean {
  if (thpOnAdvice === undefined) {
    try {
      thpOnAdvice = /\[(always|madvise)\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'));
    } catch {
      thpOnAdvice = false;
    }
  }
  return thpOnAdvice;
}

/** What dropZeroPages did: bytes handed back, and how many pages it read to find them. */
export interface ZeroPageDrop {
  bytes: number;
  pagesRead: number;
}

/**
 * Hands back every page of `memory` (an open PGlite's WebAssembly memory) that holds only zeros,
 * in runs of adjacent pages. What it handed back, or null where it cannot run (not glibc on Linux,
 * koffi missing, a shared memory another thread could write, a view that does not start the
 * memory). About 0.3 ms per MB of resident memory scanned (a 350 MB memory: 100-110 ms on this
 * 2-core machine); call it when the brain is idle.
 *
 * A page the kernel holds nowhere (not resident, not in swap: /proc/self/pagemap) reads as zeros
 * without being read: it is counted in its run as before, but not compared. Reading it would fault
 * it in, mapped to the kernel's zero page, 12-35 µs a page on this VM: an idle trim after an
 * earlier one read back every page that one had handed back, 0.66 s with the event loop blocked
 * on the 7,500-page brain. Where pagemap cannot be read, every page is compared as before.
 */
export function dropZeroPages(memory: Uint8Array): ZeroPageDrop | null {
  libc ??= loadLibc();
  if (!libc || !(memory.buffer instanceof ArrayBuffer) || memory.byteOffset !== 0) return null;
  try {
    const page = libc.pageSize;
    const start = libc.address(memory);
    const skip = Number((BigInt(page) - (start % BigInt(page))) % BigInt(page));
    const pages = Math.floor((memory.byteLength - skip) / page);
    // Buffer.compare is a native memcmp; the views share the memory, nothing is copied.
    const bytes = Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength);
    const zero = Buffer.alloc(page);
    let dropped = 0;
    let pagesRead = 0;
    let run = -1;
    const huge = hugePagesOnAdvice();
    const memoryEnd = start + BigInt(memory.byteLength);
    const handBack = (end: number) => {
      if (run < 0) return;
      const from = start + BigInt(skip + run * page);
      const length = (end - run) * page;
      if (libc!.madvise(from, length, MADV_DONTNEED) === 0) {
        dropped += length;
        if (huge) adviseRefill(libc!, from, from + BigInt(length), start, memoryEnd);
      }
      run = -1;
    };
    const kernel = pagesHeld(start + BigInt(skip), pages, page);
    try {
      for (let p = 0; p < pages; p++) {
        let zeros = true; // a page the kernel holds nowhere
        if (kernel.held(p)) {
          const at = skip + p * page;
          pagesRead++;
          zeros = zero.compare(bytes, at, at + page) === 0;
        }
        if (!zeros) handBack(p);
        else if (run < 0) run = p;
      }
    } finally {
      kernel.close();
    }
    handBack(pages);
    return { bytes: dropped, pagesRead };
  } catch {
    return null;
  }
}

/** /proc/self/pagemap entries read per read(): 256 kB at a time, whatever the memory's size. */
const PAGEMAP_WINDOW = 32_768;

/**
 * Whether the kernel holds each of the `pages` pages from `start` (resident, or in swap), from
 * /proc/self/pagemap (one 64-bit entry a page: bit 63 present, bit 62 swapped), read in windows
 * as the pages are asked in order. Where pagemap cannot be read, every page is held. Close it.
 */
function pagesHeld(start: bigint, pages: number, pageSize: number): { held(p: number): boolean; close(): void } {
  let fd: number;
  try {
    fd = openSync('/proc/self/pagemap', 'r');
  } catch {
    return { held: () => true, close: () => undefined };
  }
  const entries = Buffer.alloc(Math.min(pages, PAGEMAP_WINDOW) * 8);
  const first = Number(start / BigInt(pageSize));
  let from = 0;
  let count = 0;
  let unreadable = false;
  return {
    held(p) {
      if (unreadable) return true;
      if (p < from || p >= from + count) {
        from = p;
        try {
          count = Math.floor(readSync(fd, entries, 0, Math.min(PAGEMAP_WINDOW, pages - p) * 8, (first + p) * 8) / 8);
        } catch {
          count = 0;
        }
        // A read that fails once is not tried again for every page after it: the rest are compared.
        unreadable = count === 0;
        if (unreadable) return true;
      }
      // The entry's high 32 bits (little-endian): present 0x80000000, swapped 0x40000000.
      return (entries.readUInt32LE((p - from) * 8 + 4) & 0xc0000000) !== 0;
    },
    close: () => closeSync(fd),
  };
}

const HUGE_PAGE = 2n * 1024n * 1024n;

/**
 * How the pages just handed back in [from, to) fault in again. Postgres fills its page cache in
 * order, so after a start the cache's unread part is one long run of zero pages, read into later
 * page by page; on this machine (a Firecracker VM) each 4 kB first touch cost 12-35 µs, two per
 * 8 kB page read, most of a cold search's page reads (a cold hybrid search over MCP at 7,500
 * pages: 336 faults). So the run's whole 2 MB blocks but its first are advised for huge pages
 * again: the first page Postgres reads into such a block faults it in at once, zeroed by the
 * kernel, and the next 255 cost nothing (30-41 faults per cold search). What that holds resident
 * beyond what is read is at most the block being filled, and the next idle trim hands its zero
 * part back. The run's partial blocks at either end hold pages in use: they are kept on normal
 * pages, because khugepaged gathers a block advised for huge pages into one as soon as a single
 * page of it is resident, which would make the pages just handed back resident again.
 */
function adviseRefill(libc: Libc, from: bigint, to: bigint, memoryStart: bigint, memoryEnd: bigint): void {
  const advise = (a: bigint, b: bigint, advice: number) => {
    if (a < memoryStart) a = memoryStart;
    if (b > memoryEnd) b = memoryEnd;
    if (b > a) libc.madvise(a, Number(b - a), advice);
  };
  const first = ((from + HUGE_PAGE - 1n) / HUGE_PAGE) * HUGE_PAGE; // the run's first whole block
  const last = (to / HUGE_PAGE) * HUGE_PAGE; // the end of its last whole block
  if (first > from) advise(first - HUGE_PAGE, first, MADV_NOHUGEPAGE);
  if (last < to) advise(last, last + HUGE_PAGE, MADV_NOHUGEPAGE);
  // The first whole block stays on normal pages too: what an idle server reads after the trim
  // (its maintenance pass, a health check's statement) lands there, a few pages and not 2 MB.
  if (last > first) advise(first, first + HUGE_PAGE, MADV_NOHUGEPAGE);
  if (last > first + HUGE_PAGE) advise(first + HUGE_PAGE, last, MADV_HUGEPAGE);
}

/** glibc's functions through koffi, or null where there are none (not Linux; musl has no libc.so.6; koffi missing). */
function loadLibc(): Libc | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const lib = koffi.load('libc.so.6');
    const pageSize = (lib.func('int getpagesize(void)') as () => number)();
    if (!Number.isInteger(pageSize) || pageSize <= 0) return null;
    return {
      mallocTrim: lib.func('int malloc_trim(size_t pad)') as (pad: number) => number,
      madvise: lib.func('int madvise(uintptr_t addr, size_t length, int advice)') as (addr: bigint, length: number, advice: number) => number,
      pageSize,
      address: (view) => koffi.address(view),
    };
  } catch {
    return null;
  }
}
