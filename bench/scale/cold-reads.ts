// Which tables and indexes a search reads, on a brain the scale bench kept: the scale bench's
// held-out queries searched in this process (opened as a one-subject server opens it, the fake
// Ollama in a process of its own as the query embedder), a cold pass then a warm one, with
// Postgres's own counters (pg_statio_all_tables and _indexes) read before and after each pass:
// pages read from the data files (a "read" goes through PGlite's file layer into its page cache)
// and pages found in the cache ("hit"), per relation, with the TOAST tables and their indexes
// apart. Also each pass's p50 / p95 and its slowest searches in the order they ran, which shows
// whether a cold pass is slow all through or only in its first searches. Numbers only;
// docs/performance.md has what they showed.
//
//   npm run build && node dist/bench/scale/cold-reads.js --brain DIR/size-7500 [--pages 7500] [--seed 1] [--queries 200] [--mode hybrid]
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadRuntimeConfig } from '../../config/runtime.js';
import type { Db } from '../../services/knowledge/context.js';
import { search, type SearchMode } from '../../services/search/search.js';
import { percentile } from '../search/metrics.js';
import { SUBJECT } from './brain-home.js';
import { startFakeOllamaProcess } from './fake-ollama-child.js';
import { openForSearch } from './in-process.js';
import { fail, KEPT_BRAIN_OPTIONS, keptBrainArgs, keptBrainEnv, orExit } from './kept-brain.js';
import { loadAverage } from './processes.js';
import { keptBrainQueries } from './queries.js';

const { values } = parseArgs({ options: { ...KEPT_BRAIN_OPTIONS, mode: { type: 'string', default: 'hybrid' } } });
const { dir, pages, seed, count } = orExit(() => keptBrainArgs(values));
const mode = values.mode as SearchMode;
if (!['hybrid', 'keyword', 'semantic'].includes(mode)) fail(`--mode must be hybrid, keyword or semantic, got ${values.mode}`);

/** Pages read and hit per relation, as Postgres counts them. */
type Counts = Map<string, { read: number; hit: number }>;

async function counters(db: Db): Promise<Counts> {
  // Statistics reach the shared counters when a backend flushes them; force it for this one.
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ name: string; read: string | null; hit: string | null }>`
    SELECT relname AS name, heap_blks_read AS read, heap_blks_hit AS hit FROM pg_statio_all_tables WHERE schemaname = ${SUBJECT}
    UNION ALL SELECT relname || ' (TOAST)', toast_blks_read, toast_blks_hit FROM pg_statio_all_tables WHERE schemaname = ${SUBJECT}
    UNION ALL SELECT relname || ' (TOAST index)', tidx_blks_read, tidx_blks_hit FROM pg_statio_all_tables WHERE schemaname = ${SUBJECT}
    UNION ALL SELECT indexrelname, idx_blks_read, idx_blks_hit FROM pg_statio_all_indexes WHERE schemaname = ${SUBJECT}`.execute(db);
  return new Map(rows.map((r) => [r.name, { read: Number(r.read ?? 0), hit: Number(r.hit ?? 0) }]));
}

const queries = keptBrainQueries(pages, seed, count);
const fake = await startFakeOllamaProcess(0);
const rt = loadRuntimeConfig(keptBrainEnv(dir, { BRAIN_EMBEDDER: 'ollama', OLLAMA_URL: fake.url }));
const { conn, ctx, deps } = await openForSearch(rt, mode);
const passes: { phase: string; ms: number[]; delta: [string, number, number][] }[] = [];
try {
  for (const phase of ['cold', 'warm']) {
    const before = await counters(ctx.db);
    const ms: number[] = [];
    for (const q of queries) {
      const began = performance.now();
      await search(ctx, { query: q.text, mode }, deps);
      ms.push(performance.now() - began);
    }
    const after = await counters(ctx.db);
    const delta = [...after]
      .map(([name, c]): [string, number, number] => [name, c.read - (before.get(name)?.read ?? 0), c.hit - (before.get(name)?.hit ?? 0)])
      .filter(([, read, hit]) => read + hit > 0)
      .sort((a, b) => b[1] - a[1] || b[2] - a[2]);
    passes.push({ phase, ms, delta });
  }
} finally {
  await conn.close();
  fake.stop();
}

console.log(`\nWhat ${queries.length} held-out ${mode} searches read, ${pages} pages (${dir}), in this process, load ${loadAverage()}\n`);
for (const { phase, ms, delta } of passes) {
  const slowest = ms.map((m, i) => [i, m] as const).sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.log(`${phase}: p50 ${percentile(ms, 50).toFixed(1)} / p95 ${percentile(ms, 95).toFixed(1)} ms; slowest (search #: ms) ${slowest.map(([i, m]) => `${i + 1}: ${m.toFixed(0)}`).join(', ')}\n`);
  console.log('| relation | pages read | pages hit |\n| --- | --- | --- |');
  for (const [name, read, hit] of delta) console.log(`| ${name} | ${read.toLocaleString('en')} | ${hit.toLocaleString('en')} |`);
  console.log(`| all | ${delta.reduce((s, d) => s + d[1], 0).toLocaleString('en')} | ${delta.reduce((s, d) => s + d[2], 0).toLocaleString('en')} |\n`);
}
