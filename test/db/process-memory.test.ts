// What an idle brain gives back (db/process-memory.ts): after a full collection, glibc's
// malloc_trim returns free blocks that sit between live ones, which glibc's free() keeps; and the
// all-zero pages of a WebAssembly memory leave the resident set while reading the same; and a
// fresh memory is faulted in as huge pages before Postgres zeroes it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dropZeroPages, endHugePages, giveMemoryBack, prepareForZeroing } from '../../db/process-memory.js';
import { addressOf, hugePagesOnAdvice, mappedPages, mappingsOf } from '../support/memory-maps.js';

/** A WebAssembly memory of `bytes` (the project's TypeScript libraries leave out the DOM's declarations of it). */
const wasmMemory = (bytes: number, maximum?: number): { buffer: ArrayBuffer } =>
  new (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum?: number }) => { buffer: ArrayBuffer } } }).WebAssembly.Memory({
    initial: bytes / 65536,
    ...(maximum ? { maximum: maximum / 65536 } : {}),
  });

/** Resident memory of this process, in MiB (Linux). */
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

describe.runIf(process.platform === 'linux')('giving memory back on glibc', () => {
  it('collects and trims: freed blocks between live ones leave the resident set', () => {
    // 48 kB blocks come from malloc's heaps (below its 128 kB mmap threshold); every other one is
    // kept, so the freed ones are holes that free() alone never returns.
    const block = 48 * 1024;
    const kept: Buffer[] = [];
    let dropped: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      dropped.push(Buffer.allocUnsafeSlow(block).fill(1));
      kept.push(Buffer.allocUnsafeSlow(block).fill(2));
    }
    expect(dropped.length * block).toBeGreaterThan(90 * 1024 * 1024);
    const before = rssMiB();
    dropped = [];
    const result = giveMemoryBack();
    const after = rssMiB();
    expect(result).toEqual({ collected: true, trimmed: true });
    // About 94 MiB was dropped; without the trim the resident set stays within a few MiB.
    expect(before - after).toBeGreaterThan(50);
    expect(kept.every((b) => b[0] === 2)).toBe(true);
    expect(kept).toHaveLength(2000);
  });

  it('is safe to call again with nothing to give back', () => {
    expect(giveMemoryBack()).toEqual({ collected: true, trimmed: true });
  });

  it('hands back the all-zero pages of a WebAssembly memory, and what it holds reads and writes the same', () => {
    const MiB = 1024 * 1024;
    const memory = wasmMemory(96 * MiB);
    const heap = new Uint8Array(memory.buffer);
    // Every page touched (resident), as Postgres's start touches its page cache, then zeroed again;
    // a marker byte left in one page in 64, which must stay resident and unchanged.
    heap.fill(7);
    heap.fill(0);
    const marked: number[] = [];
    for (let at = 123; at < heap.length; at += 64 * 4096) {
      heap[at] = 42;
      marked.push(at);
    }
    expect(marked.length).toBe(384);
    const before = rssMiB();
    const dropped = dropZeroPages(heap)?.bytes;
    const after = rssMiB();
    // 96 MiB less the 384 marked pages (1.5 MiB).
    expect(dropped).toBe(96 * MiB - marked.length * 4096);
    expect(before - after).toBeGreaterThan(80);
    expect(marked.every((at) => heap[at] === 42)).toBe(true);
    let nonZero = 0;
    for (let i = 0; i < heap.length; i += 512) if (heap[i] !== 0 && !marked.includes(i)) nonZero++;
    expect(nonZero).toBe(0);
    heap[5 * 4096 + 9] = 3; // a handed-back page takes writes again
    expect(heap[5 * 4096 + 9]).toBe(3);
    // The loop above read every page: those handed back were mapped to the kernel's zero page,
    // and the next trim unmaps them again.
    expect(mappedPages(memory.buffer)).toBe(heap.length / 4096);
    expect(dropZeroPages(heap)?.bytes).toBe(96 * MiB - (marked.length + 1) * 4096);
    expect(mappedPages(memory.buffer)).toBe(marked.length + 1);
    // A trim after that counts the pages handed back without reading them (a read would fault
    // each in again, most of a trim's time on a VM): it reads only the pages still mapped.
    expect(dropZeroPages(heap)).toEqual({ bytes: 96 * MiB - (marked.length + 1) * 4096, pagesRead: marked.length + 1 });
    expect(mappedPages(memory.buffer)).toBe(marked.length + 1);
  });

  it('refuses a view that does not start its memory, and a shared memory', () => {
    const memory = wasmMemory(16 * 65536);
    expect(dropZeroPages(new Uint8Array(memory.buffer, 4096))).toBeNull();
    expect(dropZeroPages(new Uint8Array(new SharedArrayBuffer(65536)))).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('a fresh memory made quick to zero', () => {
  const MiB = 1024 * 1024;

  it.runIf(hugePagesOnAdvice())('populates it in huge pages without writing a byte, then returns the range to normal pages', () => {
    const memory = wasmMemory(64 * MiB, 256 * MiB);
    expect(mappingsOf(memory.buffer).rssKiB).toBe(0);
    expect(prepareForZeroing(memory.buffer, 256 * MiB, true)).toEqual({ hugePages: true, populated: true });
    const populated = mappingsOf(memory.buffer);
    // Resident before anything wrote to it, and in 2 MB pages (the kernel may have a few 4 kB ones at the edges).
    expect(populated.rssKiB).toBe(64 * 1024);
    expect(populated.hugeKiB).toBeGreaterThanOrEqual(60 * 1024);
    expect(populated.flags.length).toBeGreaterThan(0);
    expect(populated.flags.every((f) => f.split(' ').includes('hg'))).toBe(true);
    const heap = new Uint8Array(memory.buffer);
    let nonZero = 0;
    for (let i = 0; i < heap.length; i += 4096) if (heap[i] !== 0) nonZero++;
    expect(nonZero).toBe(0);

    expect(endHugePages(memory.buffer, 256 * MiB)).toBe(true);
    const settled = mappingsOf(memory.buffer, 256 * MiB);
    expect(settled.flags.length).toBeGreaterThan(0);
    expect(settled.flags.every((f) => f.split(' ').includes('nh') && !f.split(' ').includes('hg'))).toBe(true);
    // Pages still zero go back as before, huge or not.
    heap[3 * MiB] = 1;
    expect(dropZeroPages(heap)?.bytes).toBe(64 * MiB - 4096);
    expect(mappingsOf(memory.buffer).rssKiB).toBeLessThanOrEqual(2 * 1024);
    expect(heap[3 * MiB]).toBe(1);
  });

  it.runIf(hugePagesOnAdvice())('only advises it when told not to populate', () => {
    const memory = wasmMemory(32 * MiB, 64 * MiB);
    expect(prepareForZeroing(memory.buffer, 64 * MiB, false)).toEqual({ hugePages: true, populated: false });
    expect(mappingsOf(memory.buffer).rssKiB).toBe(0);
    new Uint8Array(memory.buffer).fill(0);
    expect(mappingsOf(memory.buffer).hugeKiB).toBeGreaterThanOrEqual(28 * 1024);
  });

  it.runIf(!hugePagesOnAdvice())('leaves it alone where the kernel gives no huge pages', () => {
    const memory = wasmMemory(4 * MiB);
    expect(prepareForZeroing(memory.buffer, 4 * MiB, true)).toBeNull();
    expect(mappingsOf(memory.buffer).rssKiB).toBe(0);
  });
});

describe.runIf(process.platform === 'linux')('pages handed back fault in again', () => {
  const MiB = 1024 * 1024;

  it.runIf(hugePagesOnAdvice())("in huge pages where a whole 2 MB block was handed back, in normal pages at the run's ends", () => {
    // As a PGlite after its start: the memory on normal pages (settled), Postgres's data at the
    // start, then the page cache, zero from 3.5 MiB on; a page in use in the middle at 20 MiB,
    // and data again from 32 MiB. Offsets are from the first 2 MB boundary in the memory (`at`).
    const memory = wasmMemory(36 * MiB, 64 * MiB);
    expect(endHugePages(memory.buffer, 64 * MiB)).toBe(true);
    const heap = new Uint8Array(memory.buffer);
    const block = 2n * BigInt(MiB);
    const o = Number((block - (addressOf(memory.buffer) % block)) % block);
    const at = (mib: number) => o + mib * MiB;
    heap.fill(5, 0, at(3.5));
    heap.fill(9, at(20), at(20) + 4096);
    heap.fill(7, at(32));
    heap.fill(0, at(3.5), at(20));
    heap.fill(0, at(20) + 4096, at(32));
    const dataKiB = (heap.length - (at(32) - at(3.5)) + 4096) / 1024;
    expect(dropZeroPages(heap)?.bytes).toBe(at(32) - at(3.5) - 4096);
    const handedBack = mappingsOf(memory.buffer);
    expect(handedBack.rssKiB).toBeLessThanOrEqual(dataKiB + 8);
    // Advised: 6-20 and 24-32 MiB. Not: 2-4 MiB (data up to 3.5), 20-22 MiB (the page in use), and
    // each run's first whole block, 4-6 and 22-24 MiB, where the few pages an idle server reads go.
    expect(handedBack.advisedHugeKiB).toBe((14 + 8) * 1024);

    // Postgres reads one page into the cache at 6 MiB: the kernel faults in the whole block.
    heap[at(6) + 100] = 1;
    const refilled = mappingsOf(memory.buffer);
    expect(refilled.hugeKiB).toBe(2048);
    expect(refilled.rssKiB).toBeGreaterThanOrEqual(dataKiB + 2048 - 8);
    // ... and one at 4 MiB and one at 21 MiB (beside the page in use): a page alone each.
    heap[at(4)] = 1;
    heap[at(21)] = 1;
    expect(mappingsOf(memory.buffer).hugeKiB).toBe(2048);
    expect(heap[at(20)]).toBe(9);
    expect(heap[at(3.5) - 1]).toBe(5);

    // The next idle trim hands the zero part of the huge page back, and that block goes back to normal pages.
    expect(dropZeroPages(heap)?.bytes).toBe(at(32) - at(3.5) - 4 * 4096);
    const again = mappingsOf(memory.buffer);
    expect(again.hugeKiB).toBe(0);
    expect(again.rssKiB).toBeLessThanOrEqual(dataKiB + 3 * 4 + 8);
    expect(heap[at(6) + 100]).toBe(1);
    // Advised now: 10-20 and 24-32 MiB. 6-8 MiB holds a page in use (khugepaged would fill it
    // again), 8-10 is its run's first whole block.
    expect(again.advisedHugeKiB).toBe((10 + 8) * 1024);
  });
});
