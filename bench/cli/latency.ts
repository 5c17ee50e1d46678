// CLI latency as a person feels it: wall time of whole processes, from spawn to exit (or to
// the banner), p50 and p95 over several runs, on a fresh brain in a temporary BRAIN_HOME.
//   - `brain --help`, `brain version`: no database, no heavy modules;
//   - `brain up` and `brain serve --subject homelab`: on a warm data directory (initialised
//     once, restarted), spawn to each point a client can use it from: listening (the banner,
//     or serve's line), an MCP `initialize` + `tools/list` answered (no database needed), the
//     first tool call answered (a search: the brain open and checked), and the "brain is open"
//     line; with the phases of the median start as the banner prints them;
//   - `brain search` (MCP to the running brain), `brain stats` (its database link) with the
//     brain running, and `brain search` with it stopped (the command opens PGlite itself);
//   - the `npm start` build check when dist/ is current (scripts/build-if-stale.mjs), and,
//     with --tsc, what `tsc --incremental` takes to find nothing to do, for comparison.
// Numbers only, no assertions; the load average is printed with them (a 2-core machine
// shared with other work moves every figure).
//
//   npm run build && node dist/bench/cli/latency.js [--runs 20] [--starts 5] [--stopped 5] [--cards 200] [--embedder none|auto|offline] [--tsc]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../../config/package.js';
import { percentile } from '../search/metrics.js';

const BRAIN_JS = join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js');
const WORDS = ['pipelines', 'postgres', 'router', 'backup', 'kernel', 'pools', 'disk', 'nas', 'vpn', 'python'];

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function timed(args: string[], env: NodeJS.ProcessEnv, input?: string): { ms: number; code: number | null; stdout: string; stderr: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [BRAIN_JS, ...args], { env, input, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  return { ms: performance.now() - started, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function checked(r: ReturnType<typeof timed>, what: string): ReturnType<typeof timed> {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr}`);
  return r;
}

/** One JSON-RPC message over Streamable HTTP, as a client sends it; the session id it got and the body. */
async function mcpPost(url: string, body: unknown, session?: string): Promise<{ session: string | null; status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) },
    body: JSON.stringify(body),
  });
  return { session: res.headers.get('mcp-session-id'), status: res.status, text: await res.text() };
}

/**
 * A client that connects as soon as it can (an `initialize` every 10 ms until one is answered),
 * lists the tools and makes one search: when each was answered, from `started`.
 */
async function firstClient(url: string, started: number): Promise<{ toolsMs: number; callMs: number }> {
  let init: Awaited<ReturnType<typeof mcpPost>> | undefined;
  while (!init) {
    init = await mcpPost(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'latency-bench', version: '1' } } }).catch(() => undefined);
    if (init?.status !== 200) init = await new Promise((r) => setTimeout(() => r(undefined), 10));
  }
  await mcpPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.session!);
  const tools = await mcpPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, init.session!);
  if (!tools.text.includes('"search"')) throw new Error(`tools/list: ${tools.text.slice(0, 300)}`);
  const toolsMs = performance.now() - started;
  const call = await mcpPost(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'postgres' } } }, init.session!);
  if (!call.text.includes('postgres')) throw new Error(`the first search: ${call.text.slice(0, 300)}`);
  return { toolsMs, callMs: performance.now() - started };
}

interface Start {
  /** Spawn to the banner (or `banner`). */
  ms: number;
  /** Spawn to "The brain is open". */
  openMs: number;
  /** With `mcpUrl`: spawn to initialize + tools/list answered, and to the first tool call answered. */
  toolsMs?: number;
  callMs?: number;
  phases: string;
  stop(): Promise<void>;
}

/**
 * Spawns `brain up` (or `args`); resolves once the brain is open (the servers listen, and print
 * the banner, before the embedded brain has opened) and, with `mcpUrl`, a first client has had
 * its answers, with the time to each, the phases line and the stop.
 */
function startBrain(env: NodeJS.ProcessEnv, args = ['up'], banner = /Stop with Ctrl-C/, phasesLine = /Started in (.*)\n/, mcpUrl?: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [BRAIN_JS, ...args], { env });
  let out = '';
  let bannerMs: number | undefined;
  const client = mcpUrl ? firstClient(mcpUrl, started) : undefined;
  client?.catch(() => undefined);
  const open = new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (bannerMs === undefined && banner.test(out)) bannerMs = performance.now() - started;
      if (!/The brain is open/.test(out)) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      resolve(performance.now() - started);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`brain ${args.join(' ')} exited ${code} before its banner:\n${out}`)));
  });
  return Promise.all([open, client]).then(([openMs, first]) => ({
    ms: bannerMs ?? openMs,
    openMs,
    ...(first ? { toolsMs: first.toolsMs, callMs: first.callMs } : {}),
    phases: phasesLine.exec(out)?.[1] ?? '(no phases line)',
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  }));
}

interface Row {
  what: string;
  runs: number;
  p50: number;
  p95: number;
  note?: string;
}

const row = (what: string, ms: number[], note?: string): Row => ({ what, runs: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), ...(note ? { note } : {}) });

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      starts: { type: 'string', default: '5' },
      stopped: { type: 'string', default: '5' },
      cards: { type: 'string', default: '200' },
      embedder: { type: 'string', default: 'none' },
      tsc: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const home = mkdtempSync(join(tmpdir(), 'brain-cli-bench-'));
  const configDir = mkdtempSync(join(tmpdir(), 'brain-cli-bench-config-'));
  const base = 30000 + Math.floor(Math.random() * 20000);
  writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n${['personal', 'homelab', 'novel', 'book'].map((s, i) => `  ${s}:\n    port: ${base + i}\n`).join('')}`);
  for (const f of ['kinds.yaml', 'deny-list.yaml']) writeFileSync(join(configDir, f), readFileSync(join(PACKAGE_ROOT, f)));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: values.embedder, BRAIN_SUBJECT: 'homelab' };
  const rows: Row[] = [];
  const loadBefore = loadAverage();
  let medianPhases = '';
  try {
    process.stderr.write(`brain init and ${values.cards} cards in ${home} ...\n`);
    checked(timed(['init'], env), 'brain init');
    const lines = Array.from({ length: Number(values.cards) }, (_, i) =>
      JSON.stringify({ tool: 'remember', args: { kind: 'tool', title: `Tool ${i} ${WORDS[i % WORDS.length]}`, body: `Notes on ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]}, card ${i}.`, forceNew: true, reason: 'bench' } }),
    );
    timed(['pipe'], env, `${lines.join('\n')}\n`);

    const check = (args: string[], n: number) => Array.from({ length: n }, () => checked(timed(args, env), `brain ${args.join(' ')}`).ms);
    rows.push(row('brain --help', check(['--help'], runs)));
    rows.push(row('brain version', check(['version'], runs)));

    // Alternately, so that a change in the machine's load reaches both alike.
    const mcp = `http://127.0.0.1:${base + 1}/mcp`;
    const starts: Start[] = [];
    const serves: Start[] = [];
    for (let i = 0; i < Number(values.starts); i++) {
      const up = await startBrain(env, ['up'], /Stop with Ctrl-C/, /Started in (.*)\n/, mcp);
      await up.stop();
      starts.push(up);
      const one = await startBrain(env, ['serve', '--subject', 'homelab'], /serving "homelab"/, /started in (.*)\)\n/, mcp);
      await one.stop();
      serves.push(one);
    }
    const sorted = [...starts].sort((a, b) => a.ms - b.ms);
    medianPhases = sorted[Math.ceil(sorted.length / 2) - 1]?.phases ?? '';
    for (const [name, list] of [['brain up', starts], ['brain serve --subject homelab', serves]] as const) {
      rows.push(row(`${name}: spawn to listening (warm data directory${name === 'brain up' ? ', the banner' : ''})`, list.map((s) => s.ms)));
      rows.push(row(`${name}: spawn to MCP initialize + tools/list answered`, list.map((s) => s.toolsMs!)));
      rows.push(row(`${name}: spawn to the first tool call answered (a search)`, list.map((s) => s.callMs!)));
      rows.push(row(`${name}: spawn to "The brain is open"`, list.map((s) => s.openMs)));
    }

    const running = await startBrain(env);
    // Its warm-up and first maintenance pass run just after the banner; measure the brain in use.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    rows.push(row('brain search, brain running (its MCP server)', Array.from({ length: runs }, (_, i) => checked(timed(['search', WORDS[i % WORDS.length]!], env), 'brain search').ms)));
    rows.push(row('brain stats, brain running (its database link)', check(['stats'], runs)));
    await running.stop();
    rows.push(row('brain search, brain stopped (opens PGlite)', Array.from({ length: Number(values.stopped) }, (_, i) => checked(timed(['search', WORDS[i % WORDS.length]!], env), 'brain search').ms)));

    const buildCheck = Array.from({ length: runs }, () => {
      const started = performance.now();
      const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
      if (r.status !== 0 || r.stderr.includes('building')) throw new Error(`dist/ is not current; build first:\n${r.stderr}`);
      return performance.now() - started;
    });
    rows.push(row('npm start build check, dist/ current (node scripts/build-if-stale.mjs)', buildCheck));
    if (values.tsc) {
      const info = join(home, 'bench.tsbuildinfo');
      const out = join(home, 'tsc-out');
      const tsc = () => {
        const started = performance.now();
        spawnSync(process.execPath, [join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', info, '--outDir', out], { cwd: PACKAGE_ROOT });
        return performance.now() - started;
      };
      const first = tsc();
      rows.push(row('tsc --incremental, nothing changed (for comparison)', [tsc(), tsc()], `first build ${(first / 1000).toFixed(1)} s`));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  }
  const ms = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n).toLocaleString('en')} ms`);
  const width = Math.max(...rows.map((r) => r.what.length));
  process.stdout.write(
    `CLI latency (Node ${process.version}, ${cpus().length} cores, BRAIN_EMBEDDER=${values.embedder}, ${values.cards} cards; load average ${loadBefore} before, ${loadAverage()} after)\n\n` +
      `${'what'.padEnd(width)}  runs  ${'p50'.padStart(8)}  ${'p95'.padStart(8)}\n` +
      rows.map((r) => `${r.what.padEnd(width)}  ${String(r.runs).padStart(4)}  ${ms(r.p50).padStart(8)}  ${ms(r.p95).padStart(8)}${r.note ? `  (${r.note})` : ''}`).join('\n') +
      `\n\nPhases of the median start: ${medianPhases}\n`,
  );
}

await main();
