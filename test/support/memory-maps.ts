// What the kernel says of this process's memory mappings (Linux): the huge-page tests of
// db/process-memory.ts and db/pglite-memory.ts read them from /proc/self/smaps.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Whether this kernel gives huge pages to memory advised for them. */
export const hugePagesOnAdvice = (): boolean => {
  try {
    return /\[(always|madvise)\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'));
  } catch {
    return false;
  }
};

/** Where `buffer` starts in this process's memory. */
export const addressOf = (buffer: ArrayBuffer): bigint => (createRequire(import.meta.url)('koffi') as typeof import('koffi')).address(new Uint8Array(buffer));

/**
 * What /proc/self/smaps says of the mappings in [start, start + bytes): resident and huge-page kB,
 * each mapping's flags, and how many kB of the range are advised for huge pages (flag `hg`).
 */
export function mappingsOf(buffer: ArrayBuffer, bytes = buffer.byteLength): { rssKiB: number; hugeKiB: number; flags: string[]; advisedHugeKiB: number } {
  const start = addressOf(buffer);
  const end = start + BigInt(bytes);
  const out = { rssKiB: 0, hugeKiB: 0, flags: [] as string[], advisedHugeKiB: 0 };
  let inside = false;
  let overlapKiB = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) {
      const [from, to] = [BigInt(`0x${range[1]}`), BigInt(`0x${range[2]}`)];
      inside = from < end && to > start;
      overlapKiB = inside ? Number(((to < end ? to : end) - (from > start ? from : start)) / 1024n) : 0;
      continue;
    }
    if (!inside) continue;
    const field = /^(Rss|AnonHugePages|VmFlags):\s+(.*)$/.exec(line);
    if (field?.[1] === 'Rss') out.rssKiB += parseInt(field[2]!, 10);
    if (field?.[1] === 'AnonHugePages') out.hugeKiB += parseInt(field[2]!, 10);
    if (field?.[1] === 'VmFlags') {
      out.flags.push(field[2]!.trim());
      if (field[2]!.trim().split(' ').includes('hg')) out.advisedHugeKiB += overlapKiB;
    }
  }
  return out;
}

/**
 * How many pages of `buffer` have a page table entry (/proc/self/pagemap, bit 63), whatever page
 * it maps: a page read after being handed back is mapped to the kernel's zero page, which smaps
 * does not count in Rss, but this does.
 */
export function mappedPages(buffer: ArrayBuffer): number {
  const page = 4096;
  const start = Number(addressOf(buffer));
  const first = Math.ceil(start / page);
  const pages = Math.floor((start + buffer.byteLength) / page) - first;
  const entries = Buffer.alloc(pages * 8);
  const fd = openSync('/proc/self/pagemap', 'r');
  try {
    readSync(fd, entries, 0, entries.length, first * 8);
  } finally {
    closeSync(fd);
  }
  let present = 0;
  for (let p = 0; p < pages; p++) if (entries.readUInt32LE(p * 8 + 4) & 0x80000000) present++;
  return present;
}
