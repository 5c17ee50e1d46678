// How long the web view's overview takes at scale: a brain of `--cards` cards (100k by default)
// in homelab, seeded by bench/lint/seed.ts (links, some dead, tags, an episode per ten cards,
// through the real triggers, so every card has its outbox row), plus a few hundred in the
// other subjects; PGlite on disk, maintained once as a running brain's maintenance would
// (db/embedded-maintenance.ts), or a fresh database on a server (`--server ADMIN_URL`). The
// view reads it as the audit role, with an embedder given, so pending embeddings are counted
// over every card (none has one: the worst case). Timed end to end by a client in its own thread
// over HTTP (the queries, the HTML, the socket): the figures read at start, from a cold cache, as the view does in the
// background when it starts; the first request, which starts lint and the
// pending count in the background; requests while those run; `--runs` requests once they are
// done (no write meanwhile: the figures are reused, services/view/pages/overview.ts); and where
// the time of a first request goes.
// Numbers only, no assertions.
//
// `--data DIR` (embedded) keeps the seeded brain in DIR and reuses it on the next run, since
// seeding 100k cards takes minutes; the late cards a run writes stay in it.
//
//   npm run build && node dist/bench/view/overview.js [--cards 100000] [--runs 20] [--server postgres://... | --data DIR]
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { parseSubjects } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { maintainEmbedded } from '../../db/embedded-maintenance.js';
import { SecretStore } from '../../db/secrets.js';
import { ident, pgliteSession, pgSession, type SqlSession } from '../../db/sql.js';
import { buildViewApp } from '../../services/view/app.js';
import { openEmbeddedAuditDb, openServerAuditDb, type AuditDb } from '../../services/view/audit-db.js';
import { createViewContext } from '../../services/view/context.js';
import { overviewData, prepareOverview, renderOverview } from '../../services/view/pages/overview.js';
import { SEED_EMBEDDER, seedLintSubject } from '../lint/seed.js';
import { createScratchDatabase } from '../scratch-database.js';
import { percentile } from '../search/metrics.js';

const { values } = parseArgs({ options: { cards: { type: 'string' }, runs: { type: 'string' }, server: { type: 'string' }, data: { type: 'string' } } });
const cards = Number(values.cards ?? 100_000);
const runs = Number(values.runs ?? 20);
const cfg = parseSubjects(`role_prefix: bv_\nsubjects:\n${['personal', 'homelab', 'novel', 'book'].map((n, i) => `  ${n}:\n    port: ${17601 + i}\n`).join('')}`, 'bench subjects');
const options = { subjects: cfg, kinds: loadKinds(join(PACKAGE_ROOT, 'kinds.yaml')), denyList: loadDenyList(join(PACKAGE_ROOT, 'deny-list.yaml')) };
const log = (line: string) => process.stdout.write(`${line}\n`);

async function seed(admin: SqlSession): Promise<void> {
  const started = performance.now();
  await seedLintSubject(admin, 'homelab', { topics: cards });
  for (const [i, subject] of ['personal', 'novel', 'book'].entries()) await seedLintSubject(admin, subject, { topics: 300, seed: 40 + i });
  const [n] = await admin.query<{ n: number }>(`SELECT (SELECT count(*) FROM homelab.topics) + (SELECT count(*) FROM personal.topics) + (SELECT count(*) FROM novel.topics) + (SELECT count(*) FROM book.topics) AS n`);
  log(`seeded ${Number(n!.n)} cards in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

let audit: AuditDb;
let cleanup: () => Promise<void>;
let label: string;
let adminSession: SqlSession;
if (values.server) {
  const scratch = await createScratchDatabase(values.server, 'brain_bench_view');
  const admin = pgSession(scratch.admin);
  const secretsDir = mkdtempSync(join(tmpdir(), 'brain-bench-view-'));
  const secrets = new SecretStore(secretsDir);
  await bootstrap(admin, { ...options, secrets });
  await seed(admin);
  adminSession = admin;
  for (const s of cfg.subjects) await admin.exec(`VACUUM (ANALYZE) ${ident(s.name)}.topics, ${ident(s.name)}.outbox, ${ident(s.name)}.episodes`);
  audit = openServerAuditDb({ host: scratch.url.hostname, port: Number(scratch.url.port || 5432), database: scratch.database }, cfg.auditRole, secrets.read(cfg.auditRole)!);
  label = `server ${(await admin.query<{ v: string }>('SHOW server_version'))[0]!.v}`;
  cleanup = async () => {
    await scratch.drop(cfg.rolePrefix);
    rmSync(secretsDir, { recursive: true, force: true });
  };
} else {
  const kept = values.data;
  const reused = kept !== undefined && existsSync(join(kept, 'PG_VERSION'));
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'brain-bench-view-'));
  if (kept) mkdirSync(kept, { recursive: true });
  let embedded = await EmbeddedDatabase.open(dir);
  if (reused) log(`reusing the brain in ${dir}`);
  else {
    await bootstrap(pgliteSession(embedded.pg), { ...options, secrets: null });
    await seed(pgliteSession(embedded.pg));
  }
  // As a brain opened again on these files: the cache sized from them, then its maintenance pass.
  await embedded.close();
  embedded = await EmbeddedDatabase.open(dir);
  await maintainEmbedded(embedded, { firstPass: true });
  audit = openEmbeddedAuditDb(embedded, cfg.auditRole);
  const opened = embedded;
  adminSession = { query: (text, params) => pgliteSession(opened.pg).query(text, params), exec: (text) => pgliteSession(opened.pg).exec(text) };
  label = `embedded (PGlite), shared_buffers ${(await embedded.pg.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v")).rows[0]!.v}`;
  cleanup = async () => {
    await embedded.close();
    if (!kept) rmSync(dir, { recursive: true, force: true });
  };
}

const view = await createViewContext(cfg, audit.db, SEED_EMBEDDER());
const app = await buildViewApp({ view, logger: pino({ level: 'silent' }) });
// The browser's side, in a thread of its own: over a real socket, timed from the request to the
// last byte of the page. Not fastify's inject in this thread: in the embedded brain every
// statement runs on this thread, so lint's statements, which start once a page is sent, would
// hold back a client here, where a browser in its own process already has the page.
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
const browser = new Worker(
  `const { parentPort } = require('node:worker_threads');
   parentPort.on('message', async (url) => {
     const started = performance.now();
     try {
       const res = await fetch(url);
       const body = await res.text();
       parentPort.postMessage(res.status === 200 ? { ms: performance.now() - started } : { error: 'overview answered ' + res.status + ': ' + body.slice(0, 300) });
     } catch (error) {
       parentPort.postMessage({ error: String(error) });
     }
   });`,
  { eval: true },
);
const overview = () =>
  new Promise<number>((resolve, reject) => {
    browser.once('message', (m: { ms?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.ms!)));
    browser.postMessage(url);
  });
const summary = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} requests)`;

log(`${label}`);
// As the view does when it starts (services/view/start.ts): the figures read in the background,
// from a cold cache; then the first visit.
const preparing = performance.now();
await prepareOverview(view);
log(`overview figures prepared at start (cold cache, in the background): ${(performance.now() - preparing).toFixed(0)} ms`);
const first = await overview();
log(`overview, first request (starts lint in the background): ${first.toFixed(0)} ms`);
const lintStarted = performance.now();
const during: number[] = [];
let lintDone = false;
const background = () => Promise.all([view.lint.settle(), view.pending.settle()]);
void background().then(() => (lintDone = true));
while (!lintDone && during.length < runs) during.push(await overview());
await background();
log(`overview while lint and the pending count run in the background: ${during.length ? summary(during) : 'they were done first'}; they took ${((performance.now() - lintStarted) / 1000).toFixed(1)} s`);
const steady: number[] = [];
for (let i = 0; i < runs; i++) steady.push(await overview());
log(`overview, steady state (background figures fresh, no write since the last overview): ${summary(steady)}`);
// After a card written into the big subject (as its writes come, one at a time): that subject's
// figures read again, its chart counting only the outbox rows after the last mark.
const afterOne: number[] = [];
for (let i = 0; i < Math.max(5, Math.round(runs / 2)); i++) {
  await adminSession.query(`INSERT INTO homelab.topics (slug, kind, title, body) VALUES ($1, 'concept', $2, 'written between two overviews')`, [`bench/late-${Date.now().toString(36)}-${i}`, `Late card ${i}`]);
  afterOne.push(await overview());
}
log(`overview after a card written into the ${cards}-card subject: ${summary(afterOne)}`);

// After a card, its tag and a link written into every subject: each subject's figures of those
// tables counted again, the others kept. (No long digit runs in the slugs: personal's deny-list
// takes a 13-digit Date.now() for a payment card number, rightly.)
const afterEvery: number[] = [];
for (let i = 0; i < Math.max(5, Math.round(runs / 2)); i++) {
  for (const subject of ['personal', 'homelab', 'novel', 'book']) {
    const slug = `bench/every-${Date.now().toString(36)}-${i}`;
    const [row] = await adminSession.query<{ id: number }>(`INSERT INTO ${subject}.topics (slug, kind, title, body) VALUES ($1, 'concept', $2, 'written between two overviews') RETURNING id`, [slug, `Every subject card ${i}`]);
    await adminSession.query(`INSERT INTO ${subject}.topic_tags (topic_id, tag) VALUES ($1, 'bench')`, [row!.id]);
    await adminSession.query(`INSERT INTO ${subject}.links (from_topic_id, to_subject, to_slug, relation) VALUES ($1, $2, $3, 'mentions')`, [row!.id, subject, `${slug}-elsewhere`]);
  }
  afterEvery.push(await overview());
}
log(`overview after a card, a tag and a link written into every subject: ${summary(afterEvery)}`);

// Read from nothing, as the first read when the view starts (with a warm cache here): nothing
// reused, the page rendered; and where that time goes, each statement summed over the subjects.
const steps = new Map<string, number[]>();
const afterWrite: number[] = [];
for (let i = 0; i < Math.max(5, Math.round(runs / 2)); i++) {
  const sums = new Map<string, number>();
  const started = performance.now();
  renderOverview(view, await overviewData(view, new Date(), (step, ms) => sums.set(step, (sums.get(step) ?? 0) + ms), false));
  afterWrite.push(performance.now() - started);
  for (const [step, ms] of sums) steps.set(step, [...(steps.get(step) ?? []), ms]);
}
log(`overview read from nothing (every figure read again, warm cache): ${summary(afterWrite)}`);
log(`  of which, median: ${[...steps].map(([step, xs]) => `${step} ${percentile(xs, 50).toFixed(0)} ms`).join(', ')}`);
await browser.terminate();
await app.close();
await audit.close();
await cleanup();
