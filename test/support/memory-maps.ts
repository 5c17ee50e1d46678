// What the kernel says of this process's memory mappings (Linux): the huge-page tests of
// db/process-memory.ts and db/pglite-memory.ts read them from /proc/self/smaps.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Whether this kernel gives huge pages to memory advised for them. */
export const hugePagesOnAdvice = (): boolean => {
  try {
    return /\[(always|madvise)\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'));
  } catch {
    return false;
  }
};

/** What /proc/self/smaps says of the mappings in [start, start + bytes): resident and huge-page kB, and each mapping's flags. */
export function mappingsOf(buffer: ArrayBuffer, bytes = buffer.byteLength): { rssKiB: number; hugeKiB: number; flags: string[] } {
  const start = (createRequire(import.meta.url)('koffi') as typeof import('koffi')).address(new Uint8Array(buffer));
  const end = start + BigInt(bytes);
  const out = { rssKiB: 0, hugeKiB: 0, flags: [] as string[] };
  let inside = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) {
      inside = BigInt(`0x${range[1]}`) < end && BigInt(`0x${range[2]}`) > start;
      continue;
    }
    if (!inside) continue;
    const field = /^(Rss|AnonHugePages|VmFlags):\s+(.*)$/.exec(line);
    if (field?.[1] === 'Rss') out.rssKiB += parseInt(field[2]!, 10);
    if (field?.[1] === 'AnonHugePages') out.hugeKiB += parseInt(field[2]!, 10);
    if (field?.[1] === 'VmFlags') out.flags.push(field[2]!.trim());
  }
  return out;
}
