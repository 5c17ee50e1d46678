// What an idle brain gives back (db/process-memory.ts): after a full collection, glibc's
// malloc_trim returns free blocks that sit between live ones, which glibc's free() keeps; and the
// all-zero pages of a WebAssembly memory leave the resident set while reading the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dropZeroPages, giveMemoryBack } from '../../db/process-memory.js';

/** A WebAssembly memory of `bytes` (the project's TypeScript libraries leave out the DOM's declarations of it). */
const wasmMemory = (bytes: number): { buffer: ArrayBuffer } =>
  new (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } } }).WebAssembly.Memory({ initial: bytes / 65536 });

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
    const dropped = dropZeroPages(heap);
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
    expect(dropZeroPages(heap)).toBe(96 * MiB - (marked.length + 1) * 4096);
  });

  it('refuses a view that does not start its memory, and a shared memory', () => {
    const memory = wasmMemory(16 * 65536);
    expect(dropZeroPages(new Uint8Array(memory.buffer, 4096))).toBeNull();
    expect(dropZeroPages(new Uint8Array(new SharedArrayBuffer(65536)))).toBeNull();
  });
});
