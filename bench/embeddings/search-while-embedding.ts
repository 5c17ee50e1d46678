// Search latency while the embedding worker works through a backlog: an embedded brain (on
// disk) with N synthetic cards pending, one subject server on real HTTP with the offline
// embedder, and a real MCP client asking keyword and hybrid searches and /healthz while the
// worker embeds. The same questions are first asked of the same brain with no embedder (no
// worker), as the baseline. Numbers only: they depend on the machine and its load.
//
//   npm run build && node dist/bench/embeddings/search-while-embedding.js [--cards 5000] [--queries 60]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { parseSubjects } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { maintainEmbedded } from '../../db/embedded-maintenance.js';
import { pgliteSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb } from '../../db/subject-db.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { startSubjectServer, type RunningSubjectServer } from '../../services/runtime/subject-server.js';
import type { EmbedderChoice } from '../../services/runtime/embedding.js';
import { percentile } from '../search/metrics.js';
import { generateSubject, rng, Vocabulary } from '../search/synthetic.js';

const { values } = parseArgs({ options: { cards: { type: 'string', default: '5000' }, queries: { type: 'string', default: '60' } } });
const cards = Number(values.cards);
const queries = Number(values.queries);

const cfg = parseSubjects('role_prefix: bw_\nsubjects:\n  personal:\n    port: 17601\n  homelab:\n    port: 17602\n', 'bench subjects');
const homelab = cfg.subjects.find((s) => s.name === 'homelab')!;
const dir = mkdtempSync(join(tmpdir(), 'brain-bench-worker-'));
const log = (line: string) => process.stderr.write(`${line}\n`);

async function client(url: string): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface Timings {
  keyword: number[];
  hybrid: number[];
  health: number[];
}

/** Alternates keyword and hybrid searches of the same questions, with a /healthz before each. */
async function ask(server: RunningSubjectServer, questions: string[], hybrid: boolean): Promise<Timings> {
  const c = await client(server.url);
  const t: Timings = { keyword: [], hybrid: [], health: [] };
  const health = server.url.replace(/\/mcp$/, '/healthz');
  for (const q of questions) {
    t.health.push(await timed(() => fetch(health).then((r) => r.json())));
    t.keyword.push(await timed(() => c.callTool({ name: 'search', arguments: { query: q, mode: 'keyword' } })));
    if (hybrid) t.hybrid.push(await timed(() => c.callTool({ name: 'search', arguments: { query: q } })));
  }
  await c.close();
  return t;
}

const row = (label: string, ms: number[]) =>
  ms.length === 0 ? `| ${label} | — | — | — | — |` : `| ${label} | ${ms.length} | ${percentile(ms, 50).toFixed(0)} | ${percentile(ms, 95).toFixed(0)} | ${Math.max(...ms).toFixed(0)} |`;

try {
  const embedded = await EmbeddedDatabase.open(join(dir, 'data'));
  const admin = pgliteSession(embedded.pg);
  await bootstrap(admin, { subjects: cfg, kinds: loadKinds(join(PACKAGE_ROOT, 'kinds.yaml')), denyList: loadDenyList(join(PACKAGE_ROOT, 'deny-list.yaml')), secrets: null });
  log(`generating ${cards} cards…`);
  const vocab = new Vocabulary(20_000);
  await generateSubject(admin, 'homelab', vocab, { topics: cards, episodes: 0, vectors: undefined });
  await maintainEmbedded(embedded, { firstPass: true });
  const r = rng(99);
  const questions = Array.from({ length: queries }, () => vocab.sentence(r, 3));
  const logger = pino({ level: 'silent' });
  const handle = openEmbeddedSubjectDb(embedded, homelab);

  log('baseline: no embedder, no worker…');
  const none: EmbedderChoice = { embedder: undefined, reason: 'bench: none' };
  let server = await startSubjectServer({ subject: homelab, handle, host: '127.0.0.1', port: 0, logger, embedder: none });
  const quiet = await ask(server, questions, false);
  await server.close();

  log('with the offline embedder: the worker embeds the backlog while the same questions are asked…');
  const offline = new OfflineEmbedder();
  await offline.load();
  server = await startSubjectServer({ subject: homelab, handle, host: '127.0.0.1', port: 0, logger, embedder: { embedder: offline, reason: 'bench: offline' } });
  const embeddedCount = async () => (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.embedding_state'))[0]!.n;
  const started = performance.now();
  const busy = await ask(server, questions, true);
  const seconds = (performance.now() - started) / 1000;
  const done = await embeddedCount();
  await server.close();
  await offline.close();
  await handle.close();
  await embedded.close();

  console.log(`${cards} cards pending; ${queries} questions; offline embedder (${offline.model}) in its own thread; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`while asking: ${done} cards embedded in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(1)} cards/s), ${cards - done} still pending at the end`);
  console.log('| request | n | p50 ms | p95 ms | max ms |');
  console.log('|---|---|---|---|---|');
  console.log(row('keyword search, no worker', quiet.keyword));
  console.log(row('/healthz, no worker', quiet.health));
  console.log(row('keyword search, worker embedding', busy.keyword));
  console.log(row('hybrid search, worker embedding', busy.hybrid));
  console.log(row('/healthz, worker embedding', busy.health));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
