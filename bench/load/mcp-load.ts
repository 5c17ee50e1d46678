// A load bench over real MCP: N clients (default 20) × M operations (default 500) against a
// running brain, for the embedded brain (PGlite) and for server mode (a Postgres server), each
// served in a child process by serveAll exactly as `brain up` serves it (bench/load/serve.ts).
//
// Each client is its own MCP session (the v1 SDK client over Streamable HTTP, as Claude Code
// connects) on the `homelab` subject, seeded with `--cards` synthetic topic cards (plus a fifth
// as many episodes, 300 cards in personal and 10 shared cards). Every client runs a fixed,
// seeded mix of search, get, list, remember (new cards, and appends to the shared cards, so
// writes race on the same rows) and record (episodes): the same operations, in the same order,
// in both modes. Every write carries a unique token; at the end the database itself is read
// and every acknowledged token must be where the reply said it was written.
//
// Prints, per mode: ops/s, p50/p95/p99 overall and per operation, errors by kind, acknowledged
// vs present writes, the brain's CPU time per operation and the load average at start and end
// (the machine may be shared: other processes' work shows in these numbers). Nothing here
// asserts a speed; the exit status is 1 only if an acknowledged write is missing.
//
//   npm run build && node dist/bench/load/mcp-load.js [--mode both|embedded|server] [--clients 20] [--ops 500]
//       [--cards 2000] [--seed 1] [--embedder none|offline] [--server postgres://ADMIN@HOST:PORT/DB]
//       [--profile DIR] [--sql-stats] [--json FILE]
//
// Server mode starts a throwaway PostgreSQL (Debian's, as the tests do) unless --server names an
// admin URL; a scratch database is made there and dropped afterwards. --profile DIR runs the
// brain under `node --cpu-prof` and writes its profile there (summarise it with
// bench/load/profile-summary.js). --sql-stats (embedded brain) times every PGlite call during the
// load and prints the costliest statements.
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadRuntimeConfig, PACKAGE_ROOT, type RuntimeConfig } from '../../config/runtime.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { ident, type SqlSession } from '../../db/sql.js';
import { freePort, startThrowawayPostgres } from '../../test/support/postgres-server.js';
import { mulberry32 } from '../prng.js';
import { createScratchDatabase, type ScratchDatabase } from '../scratch-database.js';
import { percentile } from '../search/metrics.js';
import { generateSubject, Vocabulary } from '../search/synthetic.js';
import type { ServeMessage, ServeReply, SqlStat } from './serve.js';

// ---------------------------------------------------------------- the operations

export type OpName = 'search' | 'get' | 'list' | 'remember-new' | 'remember-append' | 'record';
export const OP_NAMES: readonly OpName[] = ['search', 'get', 'list', 'remember-new', 'remember-append', 'record'];

/** The mix, in percent: reads 55, writes 45 (a third of them appends racing on 10 shared cards). */
export const MIX: Readonly<Record<OpName, number>> = { search: 30, get: 15, list: 10, 'remember-new': 15, 'remember-append': 15, record: 15 };

const SUBJECT = 'homelab';
const SHARED_CARDS = 10;
const PERSONAL_CARDS = 300;
const TOPIC_KINDS = ['concept', 'tool', 'methodology', 'environment', 'decision', 'project'];
const EPISODE_KINDS = ['work-session', 'incident', 'deploy', 'meeting', 'note', 'bug'];

export interface PlannedOp {
  op: OpName;
  tool: string;
  args: Record<string, unknown>;
  /** Writes: the unique text that must be in the database if the write was acknowledged. */
  token?: string;
}

export const sharedSlug = (i: number) => `shared/notebook-${i}`;
const sharedTitle = (i: number) => `Shared notebook ${i}`;

function pickOp(r: () => number): OpName {
  let x = r() * 100;
  for (const op of OP_NAMES) {
    x -= MIX[op];
    if (x < 0) return op;
  }
  return 'search';
}

/** Client `c`'s operations: a function of the seed, the client and the card count only. */
export function planClient(seed: number, c: number, ops: number, cards: number, vocab: Vocabulary): PlannedOp[] {
  const r = mulberry32(seed * 1_000 + c + 1);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const plan: PlannedOp[] = [];
  for (let i = 0; i < ops; i++) {
    const op = pickOp(r);
    const token = `[tok:c${c}-o${i}]`;
    switch (op) {
      case 'search':
        plan.push({ op, tool: 'search', args: { query: vocab.sentence(r, 2 + Math.floor(r() * 3)) } });
        break;
      case 'get':
        plan.push({ op, tool: 'get', args: { slug: r() < 0.2 ? sharedSlug(Math.floor(r() * SHARED_CARDS)) : `syn/${Math.floor(r() * cards)}` } });
        break;
      case 'list': {
        const x = r();
        const args = x < 0.4 ? { what: 'cards' } : x < 0.8 ? { what: 'cards', kind: pick(TOPIC_KINDS) } : x < 0.9 ? { what: 'tags' } : { what: 'stats' };
        plan.push({ op, tool: 'list', args });
        break;
      }
      case 'remember-new':
        plan.push({
          op,
          tool: 'remember',
          token,
          args: { kind: pick(TOPIC_KINDS), title: `${vocab.sentence(r, 3)} n${c}x${i}`, body: `${vocab.sentence(r, 30 + Math.floor(r() * 40))} ${token}` },
        });
        break;
      case 'remember-append': {
        const k = Math.floor(r() * SHARED_CARDS);
        plan.push({ op, tool: 'remember', token, args: { kind: 'tool', slug: sharedSlug(k), title: sharedTitle(k), body: `${vocab.sentence(r, 10 + Math.floor(r() * 20))} ${token}`, mode: 'append' } });
        break;
      }
      case 'record': {
        const day = new Date(Date.UTC(2025, 0, 1) + Math.floor(r() * 600) * 86_400_000).toISOString().slice(0, 10);
        plan.push({
          op,
          tool: 'record',
          token,
          args: {
            kind: pick(EPISODE_KINDS),
            date: day,
            title: vocab.sentence(r, 4 + Math.floor(r() * 3)),
            detail: `${vocab.sentence(r, 15 + Math.floor(r() * 25))} ${token}`,
            ...(r() < 0.5 ? { topics: [sharedSlug(Math.floor(r() * SHARED_CARDS))] } : {}),
          },
        });
        break;
      }
    }
  }
  return plan;
}

// ---------------------------------------------------------------- the clients

export interface OpResult {
  op: OpName;
  ms: number;
  /** Undefined: acknowledged. Otherwise the kind of error (tool code, HTTP status, exception). */
  error?: string;
  token?: string;
  /** Writes: where the reply says the text went (`topic SLUG` or `episode`). */
  where?: string;
}

function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

function errorKind(error: unknown): string {
  const e = error as { code?: unknown; name?: string; message?: string };
  const msg = String(e.message ?? error);
  if (e.name === 'StreamableHTTPError' || /HTTP \d{3}/.test(msg)) return `http:${/HTTP (\d{3})/.exec(msg)?.[1] ?? e.code}`;
  if (typeof e.code === 'number') return `mcp:${e.code}${/timed out/i.test(msg) ? ' (timeout)' : ''}`;
  return `${e.name ?? 'Error'}: ${msg.slice(0, 80)}`;
}

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'brain-load-bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

async function call(client: Client, p: PlannedOp): Promise<OpResult> {
  const t = performance.now();
  try {
    const result = await client.callTool({ name: p.tool, arguments: p.args }, undefined, { timeout: 120_000 });
    const ms = performance.now() - t;
    const text = textOf(result);
    if ((result as { isError?: boolean }).isError) return { op: p.op, ms, error: `tool:${/^Error \(([^)]+)\)/.exec(text)?.[1] ?? 'unknown'}`, ...(p.token ? { token: p.token } : {}) };
    if (!p.token) return { op: p.op, ms };
    const card = p.tool === 'remember' ? new RegExp(`: ${SUBJECT}:(\\S+) · `).exec(text)?.[1] : undefined;
    return { op: p.op, ms, token: p.token, where: p.tool === 'record' ? 'episode' : card ? `topic ${card}` : 'topic ?' };
  } catch (error) {
    return { op: p.op, ms: performance.now() - t, error: errorKind(error), ...(p.token ? { token: p.token } : {}) };
  }
}

// ---------------------------------------------------------------- a brain to load

interface Target {
  label: string;
  env: NodeJS.ProcessEnv;
  rt: RuntimeConfig;
  /** Reads every card body and episode detail of the subject, after the run. */
  readBack(): Promise<{ topics: Map<string, string>; episodes: string[] }>;
  cleanup(): Promise<void>;
}

function writeConfig(dir: string, rolePrefix: string, ports: number[]): string {
  const config = join(dir, 'config');
  mkdirSync(config, { recursive: true });
  const names = ['personal', 'homelab', 'novel', 'book'];
  writeFileSync(join(config, 'subjects.yaml'), `role_prefix: ${rolePrefix}\nsubjects:\n${names.map((n, i) => `  ${n}:\n    port: ${ports[i]}\n`).join('')}`);
  for (const f of ['kinds.yaml', 'deny-list.yaml']) copyFileSync(join(PACKAGE_ROOT, f), join(config, f));
  return config;
}

/** The environment of the brain's process: this one's, minus every BRAIN_ setting, plus the target's. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BRAIN_') && k !== 'OLLAMA_URL'));
  return { ...env, BRAIN_LOG_LEVEL: 'warn', ...extra };
}

async function seed(session: SqlSession, cards: number, seedValue: number, vocab: Vocabulary): Promise<void> {
  await generateSubject(session, SUBJECT, vocab, { topics: cards, episodes: Math.round(cards / 5), vectors: undefined, seed: seedValue });
  await generateSubject(session, 'personal', vocab, { topics: PERSONAL_CARDS, episodes: 0, vectors: undefined, seed: seedValue + 1 });
  const r = mulberry32(seedValue + 2);
  for (let i = 0; i < SHARED_CARDS; i++) {
    await session.query(`INSERT INTO ${ident(SUBJECT)}.topics (slug, kind, title, body) VALUES ($1, 'tool', $2, $3)`, [sharedSlug(i), sharedTitle(i), vocab.sentence(r, 40)]);
  }
  await session.exec(`ANALYZE ${ident(SUBJECT)}.topics; ANALYZE ${ident(SUBJECT)}.episodes; ANALYZE personal.topics`);
}

async function readBackWith(query: <R>(text: string) => Promise<R[]>): Promise<{ topics: Map<string, string>; episodes: string[] }> {
  const topics = await query<{ slug: string; body: string }>(`SELECT slug, body FROM ${ident(SUBJECT)}.topics`);
  const episodes = await query<{ detail: string }>(`SELECT detail FROM ${ident(SUBJECT)}.episodes WHERE detail LIKE '%[tok:%'`);
  return { topics: new Map(topics.map((t) => [t.slug, t.body])), episodes: episodes.map((e) => e.detail) };
}

async function embeddedTarget(opts: Options, vocab: Vocabulary): Promise<Target> {
  const home = mkdtempSync(join(tmpdir(), 'brain-load-'));
  const ports = await Promise.all([0, 1, 2, 3].map(() => freePort()));
  const config = writeConfig(home, 'brain_', ports);
  const env = childEnv({ BRAIN_HOME: home, BRAIN_CONFIG_DIR: config, BRAIN_EMBEDDER: opts.embedder });
  const rt = loadRuntimeConfig(env);
  // `brain init`: a new brain in an empty data directory, then the cards.
  const admin = await openAdmin(rt, { init: true });
  try {
    await runBootstrap(rt, admin);
    await seed(admin.session, opts.cards, opts.seed, vocab);
  } finally {
    await admin.close();
  }
  return {
    label: 'embedded (PGlite)',
    env,
    rt,
    async readBack() {
      const a = await openAdmin(rt);
      try {
        return await readBackWith((text) => a.session.query(text));
      } finally {
        await a.close();
      }
    },
    async cleanup() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function serverTarget(opts: Options, vocab: Vocabulary): Promise<Target> {
  let stopServer: (() => void) | undefined;
  let adminUrl = opts.server;
  if (!adminUrl) {
    const server = await startThrowawayPostgres();
    adminUrl = server.adminUrl;
    stopServer = () => server.stop();
  }
  let scratch: ScratchDatabase | undefined;
  const home = mkdtempSync(join(tmpdir(), 'brain-load-'));
  const rolePrefix = `lb${Math.floor(Math.random() * 0xffffff).toString(16)}_`;
  try {
    scratch = await createScratchDatabase(adminUrl, 'brain_load');
    const ports = await Promise.all([0, 1, 2, 3].map(() => freePort()));
    const config = writeConfig(home, rolePrefix, ports);
    const env = childEnv({
      BRAIN_HOME: home,
      BRAIN_CONFIG_DIR: config,
      BRAIN_EMBEDDER: opts.embedder,
      BRAIN_DATABASE_URL: `postgres://${scratch.url.hostname}:${scratch.url.port || 5432}/${scratch.database}`,
    });
    const rt = loadRuntimeConfig(env);
    // `brain init` with the admin URL (only here: the brain's process never sees it).
    const saved = process.env.BRAIN_ADMIN_URL;
    process.env.BRAIN_ADMIN_URL = scratch.url.toString();
    const admin = await openAdmin(rt).finally(() => {
      if (saved === undefined) delete process.env.BRAIN_ADMIN_URL;
      else process.env.BRAIN_ADMIN_URL = saved;
    });
    try {
      await runBootstrap(rt, admin);
      await seed(admin.session, opts.cards, opts.seed, vocab);
    } finally {
      await admin.close();
    }
    const version = (await scratch.admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const s = scratch;
    return {
      label: `server (PostgreSQL ${version.split(' ')[0]}${opts.server ? '' : ', throwaway'})`,
      env,
      rt,
      readBack: () => readBackWith(async (text) => (await s.admin.query(text)).rows),
      async cleanup() {
        await s.drop(rolePrefix);
        rmSync(home, { recursive: true, force: true });
        stopServer?.();
      },
    };
  } catch (error) {
    await scratch?.drop(rolePrefix).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
    stopServer?.();
    throw error;
  }
}

// ---------------------------------------------------------------- the brain's process

class BrainProcess {
  private readonly waiters: ((m: ServeReply) => void)[] = [];
  private constructor(readonly child: ChildProcess) {
    child.on('message', (m: ServeReply) => {
      const w = this.waiters.shift();
      if (w) w(m);
    });
  }

  static async start(env: NodeJS.ProcessEnv, profileDir: string | undefined, label: string): Promise<{ brain: BrainProcess; urls: Record<string, string> }> {
    const script = join(fileURLToPath(new URL('.', import.meta.url)), 'serve.js');
    const execArgv = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `brain-${label}-${process.pid}.cpuprofile`] : [];
    const child = fork(script, [], { env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const brain = new BrainProcess(child);
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the brain exited (code ${code}) before it was up`))));
    const first = await Promise.race([brain.next(), exited]);
    if (first.type !== 'up') throw new Error(`the brain did not start: ${first.type === 'failed' ? first.message : first.type}`);
    return { brain, urls: first.urls };
  }

  private next(): Promise<ServeReply> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async ask(message: ServeMessage): Promise<ServeReply> {
    const reply = this.next();
    this.child.send(message);
    return reply;
  }

  async cpuMs(): Promise<{ ms: number; rssMb: number }> {
    const r = await this.ask({ type: 'cpu' });
    if (r.type !== 'cpu') throw new Error(`unexpected reply ${r.type}`);
    return { ms: (r.user + r.system) / 1000, rssMb: r.rssMb };
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await Promise.race([this.ask({ type: 'stop' }), exited]);
    await exited;
  }
}

// ---------------------------------------------------------------- one run

export interface ModeReport {
  label: string;
  clients: number;
  opsPerClient: number;
  seconds: number;
  opsPerSecond: number;
  latency: Record<'all' | OpName, { n: number; p50: number; p95: number; p99: number; max: number }>;
  errors: Record<string, number>;
  writes: { acknowledged: number; present: number; missing: string[]; unacknowledged: number; unacknowledgedPresent: number };
  brainCpuMsPerOp: number;
  clientCpuMsPerOp: number;
  brainRssMb: number;
  loadAverage: { start: number[]; end: number[] };
  setupSeconds: number;
}

const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');

async function waitForEmbeddings(url: string, log: (l: string) => void): Promise<void> {
  const ready = url.replace(/\/mcp$/, '/readyz');
  const started = performance.now();
  for (;;) {
    const body = (await (await fetch(ready)).json()) as { embedder?: { pending?: number; state?: string } };
    const pending = body.embedder?.pending ?? 0;
    if (pending === 0 || body.embedder?.state === 'off') break;
    if (performance.now() - started > 30 * 60_000) throw new Error(`the embedder still has ${pending} cards pending after 30 minutes`);
    await new Promise((r) => setTimeout(r, 5_000));
  }
  log(`    every card embedded after ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function runMode(target: Target, opts: Options, plans: PlannedOp[][], warmups: PlannedOp[][], setupSeconds: number, log: (l: string) => void): Promise<ModeReport> {
  const t0 = performance.now();
  const sqlStatsFile = opts.sqlStats ? join(target.rt.home, 'sql-stats.json') : undefined;
  const env = sqlStatsFile ? { ...target.env, BRAIN_BENCH_SQL_STATS: sqlStatsFile } : target.env;
  const { brain, urls } = await BrainProcess.start(env, opts.profile, target.label.split(' ')[0]!);
  let stopped = false;
  try {
    const url = urls[SUBJECT]!;
    log(`    brain up in ${((performance.now() - t0) / 1000).toFixed(1)} s at ${url}`);
    if (opts.embedder !== 'none') await waitForEmbeddings(url, log);
    const sessions = await Promise.all(plans.map(() => connect(url)));
    // A few reads per client first, not timed: a brain in use, not its first seconds.
    await Promise.all(sessions.map((s, c) => (async () => {
      for (const p of warmups[c]!) await call(s.client, p);
    })()));

    const loadStart = loadavg();
    const cpuStart = await brain.cpuMs();
    const clientCpuStart = process.cpuUsage();
    const started = performance.now();
    const results = await Promise.all(
      sessions.map(async (s, c) => {
        const out: OpResult[] = [];
        for (const p of plans[c]!) out.push(await call(s.client, p));
        return out;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const clientCpu = process.cpuUsage(clientCpuStart);
    const cpuEnd = await brain.cpuMs();
    const loadEnd = loadavg();
    await Promise.all(sessions.map(async (s) => {
      await s.transport.terminateSession().catch(() => undefined);
      await s.client.close().catch(() => undefined);
    }));
    await brain.stop();
    stopped = true;
    if (sqlStatsFile && existsSync(sqlStatsFile)) printSqlStats(JSON.parse(readFileSync(sqlStatsFile, 'utf8')) as SqlStat[], plans.flat().length, log);

    const all = results.flat();
    const total = all.length;
    const latency = {} as ModeReport['latency'];
    const stats = (xs: number[]) => ({ n: xs.length, p50: percentile(xs, 50), p95: percentile(xs, 95), p99: percentile(xs, 99), max: xs.length ? Math.max(...xs) : NaN });
    latency.all = stats(all.map((r) => r.ms));
    for (const op of OP_NAMES) latency[op] = stats(all.filter((r) => r.op === op).map((r) => r.ms));
    const errors: Record<string, number> = {};
    for (const r of all) if (r.error) errors[`${r.op} ${r.error}`] = (errors[`${r.op} ${r.error}`] ?? 0) + 1;

    // Every acknowledged write, read back from the database itself.
    const { topics, episodes } = await target.readBack();
    const episodeText = episodes.join('\n');
    const anyTopicHas = (token: string) => [...topics.values()].some((b) => b.includes(token));
    const present = (r: OpResult) => {
      if (r.where === 'episode') return episodeText.includes(r.token!);
      const slug = r.where?.startsWith('topic ') ? r.where.slice(6) : '?';
      return slug !== '?' ? (topics.get(slug)?.includes(r.token!) ?? false) : anyTopicHas(r.token!);
    };
    const acked = all.filter((r) => r.token && !r.error);
    const missing = acked.filter((r) => !present(r)).map((r) => `${r.token} (${r.where})`);
    const unacked = all.filter((r) => r.token && r.error);
    const unackedPresent = unacked.filter((r) => episodeText.includes(r.token!) || anyTopicHas(r.token!)).length;
    return {
      label: target.label,
      clients: plans.length,
      opsPerClient: plans[0]?.length ?? 0,
      seconds,
      opsPerSecond: total / seconds,
      latency,
      errors,
      writes: { acknowledged: acked.length, present: acked.length - missing.length, missing, unacknowledged: unacked.length, unacknowledgedPresent: unackedPresent },
      brainCpuMsPerOp: (cpuEnd.ms - cpuStart.ms) / total,
      clientCpuMsPerOp: (clientCpu.user + clientCpu.system) / 1000 / total,
      brainRssMb: cpuEnd.rssMb,
      loadAverage: { start: loadStart, end: loadEnd },
      setupSeconds,
    };
  } finally {
    if (!stopped) {
      brain.child.kill('SIGKILL');
    }
  }
}

function printSqlStats(stats: SqlStat[], ops: number, log: (l: string) => void): void {
  const total = stats.reduce((a, s) => a + s.ms, 0);
  log(`  PGlite calls during the load: ${stats.reduce((a, s) => a + s.calls, 0)} (${(stats.reduce((a, s) => a + s.calls, 0) / ops).toFixed(1)} per operation), ${(total / 1000).toFixed(1)} s (${(total / ops).toFixed(1)} ms per operation); the costliest:`);
  log('        total s   calls   mean ms  ms/op  statement');
  for (const s of stats.slice(0, 25)) {
    log(`  ${(s.ms / 1000).toFixed(2).padStart(11)}${String(s.calls).padStart(8)}${(s.ms / s.calls).toFixed(2).padStart(10)}${(s.ms / ops).toFixed(2).padStart(7)}  ${s.sql.length > 200 ? `${s.sql.slice(0, 110)} … ${s.sql.slice(-85)}` : s.sql}`);
  }
}

function printReport(r: ModeReport, log: (l: string) => void): void {
  const ms = (x: number) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
  log(`  ${r.clients * r.opsPerClient} operations in ${r.seconds.toFixed(1)} s: ${r.opsPerSecond.toFixed(1)} ops/s`);
  log(`  latency (ms)        n      p50      p95      p99      max`);
  for (const op of ['all', ...OP_NAMES] as const) {
    const l = r.latency[op];
    log(`  ${op.padEnd(16)}${String(l.n).padStart(5)}${ms(l.p50).padStart(9)}${ms(l.p95).padStart(9)}${ms(l.p99).padStart(9)}${ms(l.max).padStart(9)}`);
  }
  const errs = Object.entries(r.errors);
  log(`  errors: ${errs.length ? errs.map(([k, n]) => `${k} × ${n}`).join(', ') : '0'}`);
  const w = r.writes;
  log(`  writes: acknowledged ${w.acknowledged}, present ${w.present}${w.missing.length ? ` — MISSING ${w.missing.length}: ${w.missing.slice(0, 5).join(', ')}${w.missing.length > 5 ? ', ...' : ''}` : ' (all present)'}; unacknowledged ${w.unacknowledged} (present anyway ${w.unacknowledgedPresent})`);
  const where = r.label.startsWith('server') ? ", the brain's process only (the Postgres server's own CPU is not counted)" : '';
  log(`  brain CPU ${r.brainCpuMsPerOp.toFixed(1)} ms per operation${where} (rss ${r.brainRssMb} MB); the bench's own clients ${r.clientCpuMsPerOp.toFixed(1)} ms per operation`);
  log(`  load average (1/5/15 min) at start ${fmtLoad(r.loadAverage.start)}, at end ${fmtLoad(r.loadAverage.end)}`);
}

// ---------------------------------------------------------------- main

interface Options {
  modes: ('embedded' | 'server')[];
  clients: number;
  ops: number;
  cards: number;
  seed: number;
  warmup: number;
  embedder: 'none' | 'offline';
  server: string | undefined;
  profile: string | undefined;
  json: string | undefined;
  /** Embedded brain: time every PGlite call by statement and print the costliest. */
  sqlStats: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'both' },
      clients: { type: 'string', default: '20' },
      ops: { type: 'string', default: '500' },
      cards: { type: 'string', default: '2000' },
      seed: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '3' },
      embedder: { type: 'string', default: 'none' },
      server: { type: 'string' },
      profile: { type: 'string' },
      json: { type: 'string' },
      'sql-stats': { type: 'boolean', default: false },
    },
  });
  const int = (name: string, raw: string, min: number) => {
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min) {
      console.error(`--${name} must be an integer >= ${min}, got ${raw}`);
      process.exit(2);
    }
    return v;
  };
  if (!['both', 'embedded', 'server'].includes(values.mode)) {
    console.error('--mode is both, embedded or server');
    process.exit(2);
  }
  if (values.embedder !== 'none' && values.embedder !== 'offline') {
    console.error('--embedder is none (keyword search) or offline (the built-in model)');
    process.exit(2);
  }
  return {
    modes: values.mode === 'both' ? ['embedded', 'server'] : [values.mode as 'embedded' | 'server'],
    clients: int('clients', values.clients, 1),
    ops: int('ops', values.ops, 1),
    cards: int('cards', values.cards, 1),
    seed: int('seed', values.seed, 0),
    warmup: int('warmup', values.warmup, 0),
    embedder: values.embedder,
    server: values.server,
    profile: values.profile,
    json: values.json,
    sqlStats: values['sql-stats'],
  };
}

async function main(): Promise<void> {
  const opts = options();
  const log = (l: string) => console.log(l);
  if (opts.profile) mkdirSync(opts.profile, { recursive: true });
  const vocab = new Vocabulary(5_000);
  const plans = Array.from({ length: opts.clients }, (_, c) => planClient(opts.seed, c, opts.ops, opts.cards, vocab));
  // Warm-up: reads only, from another stream of the PRNG.
  const warmups = Array.from({ length: opts.clients }, (_, c) => planClient(opts.seed + 7_777, c, opts.warmup * 4, opts.cards, vocab).filter((p) => !p.token).slice(0, opts.warmup));
  const counts = Object.fromEntries(OP_NAMES.map((op) => [op, plans.flat().filter((p) => p.op === op).length]));
  log(`claude-brain MCP load bench · ${new Date().toISOString()} · ${cpus().length} cores · node ${process.version}`);
  log('This machine may be shared: other processes show in these numbers; the load average is printed with them.');
  log(`seed ${opts.seed} · ${opts.clients} clients × ${opts.ops} operations over MCP Streamable HTTP, one session each, on "${SUBJECT}"`);
  log(`brain: ${opts.cards} cards + ${Math.round(opts.cards / 5)} episodes in ${SUBJECT}, ${PERSONAL_CARDS} cards in personal, ${SHARED_CARDS} shared cards; embedder ${opts.embedder}${opts.embedder === 'none' ? ' (keyword search)' : ''}`);
  log(`mix: ${OP_NAMES.map((op) => `${op} ${counts[op]}`).join(', ')}`);
  const reports: ModeReport[] = [];
  for (const mode of opts.modes) {
    log('');
    log(`== ${mode} ==`);
    const t = performance.now();
    const target = mode === 'embedded' ? await embeddedTarget(opts, vocab) : await serverTarget(opts, vocab);
    const setupSeconds = (performance.now() - t) / 1000;
    log(`    ${target.label}: initialised and seeded in ${setupSeconds.toFixed(1)} s`);
    try {
      const report = await runMode(target, opts, plans, warmups, setupSeconds, log);
      reports.push(report);
      printReport(report, log);
    } finally {
      await target.cleanup();
    }
  }
  if (reports.length > 1) {
    log('');
    log('mode                                      ops/s    p50    p95    p99  errors  acked/present  CPU ms/op');
    for (const r of reports) {
      const errs = Object.values(r.errors).reduce((a, b) => a + b, 0);
      log(
        `${r.label.padEnd(40)}${r.opsPerSecond.toFixed(1).padStart(7)}${r.latency.all.p50.toFixed(0).padStart(7)}${r.latency.all.p95.toFixed(0).padStart(7)}${r.latency.all.p99.toFixed(0).padStart(7)}${String(errs).padStart(8)}  ${`${r.writes.acknowledged}/${r.writes.present}`.padStart(13)}${r.brainCpuMsPerOp.toFixed(1).padStart(11)}`,
      );
    }
  }
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ date: new Date().toISOString(), cores: cpus().length, options: opts, reports }, null, 2)}\n`);
  const bad = reports.some((r) => r.writes.missing.length > 0);
  if (bad) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
