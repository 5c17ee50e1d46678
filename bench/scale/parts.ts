// Where a search's time goes, on a brain the scale bench kept (`run.js --keep DIR`): the
// scale bench's held-out queries timed three ways, in one run, so that a figure over MCP can be
// read against its parts (issue 17: hybrid p95 over MCP under 40 ms at 7,500 pages).
//   1. In this process, opened as a one-subject server opens it, with the server's search
//      dependencies (the fake Ollama as the query embedder, the pending count from its worker's
//      status rather than counted per search): search() whole, cold then warm, paced as the MCP
//      client is. The fake Ollama runs in a process of its own (fake-ollama-process.ts), as a
//      real one does, answering after --embed-delay-ms (0: at once; a real one takes tens).
//   2. Then each part of a search on its own (warm): the keyword statements, the query's
//      embedding (an HTTP call to the fake Ollama), the vector statement, the relevance evidence,
//      the display (titles and snippets). In search() the first three overlap; the others follow.
//   3. Over MCP against `brain serve` on the same data directory: ping and tools/list round
//      trips (the transport alone), the same searches cold then warm, this process's CPU per
//      call (the v1 SDK client) and the server's minor page faults per search (Linux).
// Numbers only; docs/performance.md ("Where a search's time goes") has the method and figures.
//
// With --slowest N, also the N queries whose parts took longest, each part's time beside them.
//
//   npm run build && node dist/bench/scale/parts.js --brain DIR/size-7500 [--pages 7500] [--seed 1] [--queries 200] [--mode hybrid] [--embed-delay-ms 0] [--slowest 0]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { findSubject, loadSubjects } from '../../config/subjects.js';
import { readableSubjects } from '../../services/knowledge/topics.js';
import { keywordSearch } from '../../services/search/keyword.js';
import { RANKING } from '../../services/search/ranking.js';
import { judgeRelevance, rankedSearch, search, type SearchMode } from '../../services/search/search.js';
import { cardDisplays } from '../../services/search/snippets.js';
import { parseTextQuery } from '../../services/search/text-query.js';
import type { SearchFilters } from '../../services/search/types.js';
import { subjectsWithVectors, vectorSearch } from '../../services/search/vectors.js';
import { percentile } from '../search/metrics.js';
import { SUBJECT } from './brain-home.js';
import { startFakeOllamaProcess } from './fake-ollama-child.js';
import { openForSearch } from './in-process.js';
import { fail, KEPT_BRAIN_OPTIONS, keptBrainArgs, keptBrainEnv, orExit, wholeOption } from './kept-brain.js';
import { connect, runQueries } from './mcp.js';
import { loadAverage, minorFaultsOf, startServer } from './processes.js';
import { keptBrainQueries, type Query } from './queries.js';

const { values } = parseArgs({
  options: {
    ...KEPT_BRAIN_OPTIONS,
    mode: { type: 'string', default: 'hybrid' },
    pace: { type: 'string', default: '60' },
    'embed-delay-ms': { type: 'string', default: '0' },
    slowest: { type: 'string', default: '0' },
  },
});
const whole = (name: string, raw: string, min: number): number => orExit(() => wholeOption(name, raw, min));
const { dir, pages, seed, count } = orExit(() => keptBrainArgs(values));
const paceMs = whole('pace', values.pace, 0);
const embedDelayMs = whole('embed-delay-ms', values['embed-delay-ms'], 0);
const slowest = whole('slowest', values.slowest, 0);
const mode = values.mode as SearchMode;
if (!['hybrid', 'keyword', 'semantic'].includes(mode)) fail(`--mode must be hybrid, keyword or semantic, got ${values.mode}`);
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Row = [label: string, ms: number[], note?: string];
const cell = (ms: number[]) => (ms.length === 0 ? '-' : `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)}`);

async function timed<T>(into: number[], fn: () => Promise<T>): Promise<T> {
  const began = performance.now();
  const out = await fn();
  into.push(performance.now() - began);
  return out;
}

const queries = keptBrainQueries(pages, seed, count);
const fake = await startFakeOllamaProcess(embedDelayMs);
const env = keptBrainEnv(dir, { BRAIN_EMBEDDER: 'ollama', OLLAMA_URL: fake.url });
const rows: Row[] = [];
/** Each query's warm times: search() whole and (when run) each part, for --slowest. */
const perQuery: ({ query: Query; whole: number } & Record<string, number | Query | undefined>)[] = [];
log(`${queries.length} queries, mode ${mode}, the fake Ollama answering after ${embedDelayMs} ms, load ${loadAverage()}`);

// ---- 1 and 2: in this process
{
  const { conn, ctx, embedder, model, deps } = await openForSearch(loadRuntimeConfig(env), mode);
  try {
    for (const phase of ['cold', 'warm']) {
      const ms: number[] = [];
      for (const q of queries) {
        await timed(ms, () => search(ctx, { query: q.text, mode }, deps));
        await sleep(paceMs);
      }
      rows.push([`search() in the process, ${phase}`, ms]);
    }
    const subjects = readableSubjects(ctx);
    const filters: SearchFilters = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: true, includeTopics: true };
    const withVectors = await subjectsWithVectors(ctx.db, subjects);
    const depth = RANKING.fusionDepth;
    const parts = { keyword: [] as number[], embed: [] as number[], vector: [] as number[], evidence: [] as number[], display: [] as number[] };
    const warmWhole = rows.at(-1)![1];
    for (const [i, q] of queries.entries()) {
      const textQuery = parseTextQuery(q.text);
      if (mode !== 'semantic') await timed(parts.keyword, () => keywordSearch(ctx.db, subjects, textQuery, filters, depth, { normalisation: RANKING.rankNormalisation }));
      if (embedder && model && mode !== 'keyword') {
        const embedding = await timed(parts.embed, () => embedder.embedQuery(q.text));
        const chunkLimit = Math.min(400, Math.ceil(depth * RANKING.vectorChunksPerCard));
        await timed(parts.vector, () => vectorSearch(ctx.db, withVectors, { embedding, ...model, chunkLimit }, filters, depth));
      }
      const ranked = await rankedSearch(ctx, { query: q.text, mode }, deps);
      const judged = await timed(parts.evidence, () => judgeRelevance(ctx, ranked));
      await timed(parts.display, () => cardDisplays(ctx.db, [...judged.kept, ...judged.weak].map((h) => h.ref), ranked.textQuery));
      perQuery.push({ query: q, whole: warmWhole[i]!, ...Object.fromEntries(Object.entries(parts).map(([k, ms]) => [k, ms.at(-1)])) });
      await sleep(paceMs);
    }
    rows.push(
      ['  keyword statements (warm)', parts.keyword],
      ['  query embedding, HTTP to the fake Ollama (warm)', parts.embed, 'asked for first in search(): overlaps the keyword statements'],
      ['  vector statement (warm)', parts.vector],
      ['  relevance evidence (warm)', parts.evidence],
      ['  display: titles and snippets (warm)', parts.display],
    );
  } finally {
    await conn.close();
  }
}

// ---- 3: over MCP, `brain serve` on the same data directory
const port = findSubject(loadSubjects(join(dir, 'config', 'subjects.yaml')), SUBJECT).port;
const baseUrl = `http://127.0.0.1:${port}`;
const server = startServer(env, SUBJECT, baseUrl);
let cpuPerCall = { transport: NaN, search: NaN };
/** The server's minor page faults per search over MCP (Linux). */
let serverFaults: { cold: number; warm: number } | undefined;
try {
  await server.healthy;
  await server.openLine;
  await sleep(3_000); // the worker's first attempt (refused) and the server's first maintenance pass
  const client = await connect(`${baseUrl}/mcp`);
  try {
    const ping: number[] = [];
    const list: number[] = [];
    let cpu = process.cpuUsage();
    // One call per pace at most: the server allows a session 20 requests a second.
    for (let i = 0; i < 100; i++) {
      await timed(ping, () => client.ping());
      await sleep(Math.max(paceMs, 60));
      await timed(list, () => client.listTools());
      await sleep(Math.max(paceMs, 60));
    }
    const transportCpu = process.cpuUsage(cpu);
    rows.push(['MCP ping round trip', ping], ['MCP tools/list round trip', list]);
    const faults = () => (server.child.pid === undefined ? undefined : minorFaultsOf(server.child.pid));
    const before = faults();
    const cold = await runQueries(client, queries, mode, 'cold', paceMs);
    const between = faults();
    cpu = process.cpuUsage();
    const warm = await runQueries(client, queries, mode, 'warm', paceMs);
    const after = faults();
    if (before !== undefined && between !== undefined && after !== undefined)
      serverFaults = { cold: (between - before) / cold.length, warm: (after - between) / warm.length };
    const searchCpu = process.cpuUsage(cpu);
    const failed = [...cold, ...warm].filter((s) => s.error);
    if (failed.length > 0) throw new Error(`${failed.length} search(es) over MCP failed, the first: ${failed[0]!.error}`);
    rows.push([`search over MCP, cold`, cold.map((s) => s.ms)], [`search over MCP, warm`, warm.map((s) => s.ms)]);
    const ms = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    cpuPerCall = { transport: ms(transportCpu) / 200, search: ms(searchCpu) / warm.length };
  } finally {
    await client.close();
  }
} finally {
  await server.stop();
  fake.stop();
}

console.log(`\nWhere a ${mode} search's time goes: ${queries.length} held-out queries, ${pages} pages (${dir}), the fake Ollama answering after ${embedDelayMs} ms, load ${loadAverage()}\n`);
console.log('| | p50 / p95 ms |\n| --- | --- |');
for (const [label, ms, note] of rows) console.log(`| ${label} | ${cell(ms)}${note ? ` (${note})` : ''} |`);
if (slowest > 0) {
  console.log(`\nThe ${slowest} slowest queries in search() (warm), with each part's time (ms):\n`);
  console.log('| query | shape | search() | keyword | embed | vector | evidence | display |\n| --- | --- | --- | --- | --- | --- | --- | --- |');
  const f = (v: unknown) => (typeof v === 'number' ? v.toFixed(1) : '-');
  for (const r of [...perQuery].sort((a, b) => b.whole - a.whole).slice(0, slowest)) {
    console.log(`| ${r.query.text} | ${r.query.shape} | ${f(r.whole)} | ${f(r.keyword)} | ${f(r.embed)} | ${f(r.vector)} | ${f(r.evidence)} | ${f(r.display)} |`);
  }
  console.log('\nBy shape, warm, p50 / p95 ms:\n\n| shape | queries | search() | keyword | vector | evidence |\n| --- | --- | --- | --- | --- | --- |');
  for (const shape of new Set(queries.map((q) => q.shape))) {
    const of = perQuery.filter((r) => r.query.shape === shape);
    const col = (k: string) => cell(of.flatMap((r) => (typeof r[k] === 'number' ? [r[k]] : [])));
    console.log(`| ${shape} | ${of.length} | ${col('whole')} | ${col('keyword')} | ${col('vector')} | ${col('evidence')} |`);
  }
}
console.log(`\nThis process's CPU per MCP call (the v1 client): ${cpuPerCall.transport.toFixed(2)} ms for ping or tools/list, ${cpuPerCall.search.toFixed(2)} ms for a search.`);
if (serverFaults) console.log(`The server's minor page faults (first touches of memory) per search over MCP: ${serverFaults.cold.toFixed(0)} cold, ${serverFaults.warm.toFixed(0)} warm.`);
