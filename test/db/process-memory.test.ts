// What a sleeping brain gives back (db/process-memory.ts): after a full collection, glibc's
// malloc_trim returns free blocks that sit between live ones, which glibc's free() keeps.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { giveMemoryBack } from '../../db/process-memory.js';

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
});
