// `brain serve --stdio` as a client that spawns it sees the start (Claude Desktop, a spawning
// Claude Code): the client writes `initialize` to stdin at once, then `tools/list` and a first
// tool call (`list`, which needs the database) as soon as `initialize` is answered; spawn to each
// answer, over several starts, with the brain's data directory held by nobody else. On a brain
// the scale bench kept, or any BRAIN_HOME. Numbers only (docs/clients.md, "stdio instead of HTTP").
//
//   npm run build && node dist/bench/cli/stdio-start.js --brain DIR/size-7500 [--runs 8] [--subject homelab]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { BRAIN_BIN, loadAverage } from '../scale/processes.js';
import { keptBrainDir, keptBrainEnv, orExit, wholeOption } from '../scale/kept-brain.js';
import { percentile } from '../search/metrics.js';

const { values } = parseArgs({ options: { brain: { type: 'string' }, runs: { type: 'string', default: '8' }, subject: { type: 'string', default: 'homelab' } } });
const dir = orExit(() => keptBrainDir(values.brain));
const runs = orExit(() => wholeOption('runs', values.runs!, 1));
const env = keptBrainEnv(dir, { BRAIN_EMBEDDER: 'none' });

const rpc = (id: number | undefined, method: string, params?: unknown) => `${JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }) })}\n`;

/** One start: spawn to initialize, tools/list and the first tool call answered (ms). */
async function start(): Promise<{ initialize: number; list: number; call: number }> {
  const began = performance.now();
  const child = spawn(BRAIN_BIN, ['serve', '--stdio', '--subject', values.subject!], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.write(rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-start-bench', version: '1' } }));
  const at: Partial<Record<'initialize' | 'list' | 'call', number>> = {};
  try {
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.once('exit', (code) => reject(new Error(`brain serve --stdio exited (${code}) before its first tool call was answered:\n${stderr.slice(-2_000)}`)));
      child.stdout.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const id = (JSON.parse(line) as { id?: number }).id;
          if (id === 1 && at.initialize === undefined) {
            at.initialize = performance.now() - began;
            child.stdin.write(rpc(undefined, 'notifications/initialized') + rpc(2, 'tools/list') + rpc(3, 'tools/call', { name: 'list', arguments: {} }));
          }
          if (id === 2) at.list = performance.now() - began;
          if (id === 3) {
            at.call = performance.now() - began;
            resolve();
          }
        }
      });
    });
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
  return { initialize: at.initialize!, list: at.list!, call: at.call! };
}

console.error(`${runs} starts of brain serve --stdio --subject ${values.subject} on ${dir}, load ${loadAverage()}`);
const all: { initialize: number; list: number; call: number }[] = [];
for (let i = 0; i < runs; i++) {
  all.push(await start());
  await new Promise((r) => setTimeout(r, 500));
}
const cell = (k: 'initialize' | 'list' | 'call') => {
  const ms = all.map((r) => r[k]);
  return `${percentile(ms, 50).toFixed(0)} / ${percentile(ms, 95).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)})`;
};
console.log(`\nbrain serve --stdio, ${runs} starts, spawn to each answer, p50 / p95 (range); load ${loadAverage()}\n`);
console.log('| answered | p50 / p95 (range) |\n| --- | --- |');
console.log(`| initialize | ${cell('initialize')} |\n| tools/list | ${cell('list')} |\n| first tool call (list: the brain open) | ${cell('call')} |`);
