// What the offline model costs an idle server, and what loading it on first need costs the
// first search: `brain serve --subject homelab` (offline embedder) on an empty embedded brain,
// as its own process. Resident memory once warmed up and idle; the first hybrid search over MCP
// right after a session opens (the model loading, if it is not loaded) and the next ones; with
// --release, the same after the model's threads stopped for idleness (5 minutes), when a
// session opened 2 s before its first search (the session's opening starts the load).
// --brain takes several builds (comma-separated brain.js paths), run alternately.
//
//   npm run build && node dist/bench/embeddings/idle-memory.js [--rounds 2] [--session-wait MS] [--release] [--brain A,B]
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { connectClient } from '../../test/support/mcp.js';
import { brainEnv } from './backlog.js';
import { rssMb } from './server-run.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    /** How long the first search's session is open before it searches (the session's opening starts the model's load). */
    'session-wait': { type: 'string', default: '0' }, release: { type: 'boolean', default: false }, brain: { type: 'string', default: 'dist/cli/brain.js' }, port: { type: 'string', default: '18912' } },
});
const builds = values.brain.split(',').map((p) => resolve(p));
const port = Number(values.port);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timedSearch(url: string, query: string, waitMs = 0): Promise<number> {
  const c = await connectClient(url);
  if (waitMs > 0) await sleep(waitMs);
  const t = performance.now();
  const r = await c.callTool({ name: 'search', arguments: { query } });
  const ms = performance.now() - t;
  await c.close();
  if (r.isError) throw new Error(`search failed: ${JSON.stringify(r.content)}`);
  return ms;
}

async function once(brainJs: string, dir: string): Promise<string> {
  const home = join(dir, `home-${Math.random().toString(36).slice(2)}`);
  const configDir = join(dir, 'config');
  const env = brainEnv(home, configDir, { BRAIN_EMBEDDER: 'offline', BRAIN_LOG_LEVEL: 'info' });
  execFileSync(process.execPath, [brainJs, 'init'], { env, stdio: 'ignore' });
  const child = spawn(process.execPath, [brainJs, 'serve', '--subject', 'homelab'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  try {
    const deadline = Date.now() + 120_000;
    while (!out.includes('"warmed up"')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no warm-up:\n${out}`);
      await sleep(100);
    }
    await sleep(10_000);
    const idle = rssMb(child.pid!);
    const url = `http://127.0.0.1:${port}/mcp`;
    const first = await timedSearch(url, 'which host runs the backups?', Number(values['session-wait']));
    const loaded = rssMb(child.pid!);
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await timedSearch(url, `question number ${i} about the NAS`));
    let line = `idle after warm-up ${idle.toFixed(0)} MB; first search (${values['session-wait']} ms after its session opened) ${first.toFixed(0)} ms (RSS then ${loaded.toFixed(0)} MB); next ${median(warm).toFixed(0)} ms (median of 5)`;
    if (values.release) {
      await sleep(5 * 60_000 + 15_000);
      const released = rssMb(child.pid!);
      const afterIdle = await timedSearch(url, 'where are the certificates renewed?', 2_000);
      line += `; after 5 min idle ${released.toFixed(0)} MB, then a search 2 s after its session opened ${afterIdle.toFixed(0)} ms`;
    }
    return `${line}; load ${load()}`;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    process.off('exit', kill);
    rmSync(home, { recursive: true, force: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'brain-bench-idle-'));
try {
  mkdirSync(join(dir, 'config'));
  for (const f of ['kinds.yaml', 'deny-list.yaml']) copyFileSync(join(PACKAGE_ROOT, f), join(dir, 'config', f));
  writeFileSync(join(dir, 'config', 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n  personal:\n    port: ${port - 1}\n  homelab:\n    port: ${port}\n`);
  console.log(`# Idle memory and first search, brain serve --subject homelab, empty embedded brain, offline embedder; ${new Date().toISOString()}, load ${load()}`);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of builds) console.log(`${b}: ${await once(b, dir)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
