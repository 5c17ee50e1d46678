// Summarises a V8 CPU profile (`node --cpu-prof`, as bench/load/mcp-load.ts --profile writes
// them): the functions with the most self time, and self time grouped by where the code lives
// (PGlite's WASM Postgres, kysely, the MCP SDK, zod, fastify, our own code, node itself).
// With `--per N` the times are also divided by N (the operations the profile covered).
//
//   node dist/bench/load/profile-summary.js FILE.cpuprofile [--top 30] [--per 10000] [--inclusive REGEX]
//
// --inclusive REGEX also lists the inclusive time (self and callees) of the matching functions.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Which body of code a frame belongs to. */
export function area(url: string, name: string): string {
  if (url === '') {
    if (name === '(garbage collector)') return 'GC';
    if (name === '(idle)' || name === '(program)') return name;
    return 'native/wasm';
  }
  if (/^wasm:\/\//.test(url)) return 'PGlite (WASM Postgres)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(dist\/)?(db|services|bench|cli|config)\//.exec(url);
  if (ours) return `claude-brain ${ours[2]}/`;
  return url;
}

export function summarise(profile: CpuProfile): { totalMs: number; byFunction: [string, number][]; byArea: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    // timeDeltas[i] is the time before sample i; the time of sample i is the next delta.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
  }
  const fn = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist\/)?/, '');
    const key = `${functionName || '(anonymous)'}  ${file}${url ? `:${lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + us);
    total += us;
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000] as [string, number]);
  return { totalMs: total / 1000, byFunction: sorted(fn), byArea: sorted(areas) };
}

/** Inclusive time (self and everything it called) of the functions whose name or file matches `pattern`. */
export function inclusive(profile: CpuProfile, pattern: RegExp): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist\/)?/, '')}:${n.callFrame.lineNumber + 1}`;
  const total = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id)!);
      if (!seen.has(key) && pattern.test(key)) {
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + dt);
      }
    }
  }
  return [...total.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000]);
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, per: { type: 'string' }, inclusive: { type: 'string' } } });
  const file = positionals[0];
  if (!file) {
    console.error('usage: profile-summary FILE.cpuprofile [--top 30] [--per OPERATIONS]');
    process.exit(2);
  }
  const top = Number(values.top);
  const per = values.per === undefined ? undefined : Number(values.per);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const s = summarise(profile);
  const busy = s.totalMs - (s.byArea.find(([a]) => a === '(idle)')?.[1] ?? 0);
  const row = (label: string, ms: number) =>
    `${(ms / 1000).toFixed(2).padStart(9)} s ${((100 * ms) / busy).toFixed(1).padStart(5)}%${per ? `${(ms / per).toFixed(2).padStart(9)} ms/op` : ''}  ${label}`;
  console.log(`${file}: ${(s.totalMs / 1000).toFixed(1)} s profiled, ${(busy / 1000).toFixed(1)} s not idle${per ? ` (${(busy / per).toFixed(1)} ms per operation over ${per})` : ''}; percentages of the non-idle time`);
  console.log('\nself time by area:');
  for (const [a, ms] of s.byArea) if (a !== '(idle)') console.log(row(a, ms));
  console.log(`\ntop ${top} functions by self time:`);
  for (const [f, ms] of s.byFunction.filter(([k]) => !k.startsWith('(idle)')).slice(0, top)) console.log(row(f, ms));
  if (values.inclusive) {
    console.log(`\ninclusive time of functions matching /${values.inclusive}/:`);
    for (const [f, ms] of inclusive(profile, new RegExp(values.inclusive)).slice(0, top)) console.log(row(f, ms));
  }
}

main();
