// Lint on big subjects, and what it does to searches asked meanwhile. For each size: a subject
// seeded by bench/lint/seed.ts (a fifth of the cards near-duplicates of another, links, some
// dead, tag variants; 512-d hashed vectors where pgvector is); one lint timed, with the time
// per check and the longest single statement; searches timed alone, then while `--lints`
// lints are started at once (one runs, the others wait their turn or are told lint is busy).
// `--old` also times the all-pairs queries lint ran before it worked in batches (kept below
// verbatim), alone and as the load under the same searches (`--old-lints` of them at once).
// Numbers only, no assertions: speeds depend on the machine.
//
//   npm run build && node dist/bench/lint/lint.js [--sizes 2700,10000] [--server postgres://... [--server-only]]
//                                                 [--lints 5] [--searches 30] [--old] [--old-lints 1] [--old-max 3000]
import { setImmediate } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { embeddingLintHooks } from '../../services/curation/lint-hooks.js';
import { lint, type LintEmbeddingHooks } from '../../services/curation/lint.js';
import { BrainError, type BrainContext } from '../../services/knowledge/index.js';
import { search } from '../../services/search/search.js';
import { embeddedBenchBrain, serverBenchBrain, type BenchBrain } from '../search/brain.js';
import { percentile } from '../search/metrics.js';
import { seedLintSubject, SEED_EMBEDDER } from './seed.js';

export interface LintBenchOptions {
  sizes?: number[];
  server?: string | undefined;
  serverOnly?: boolean;
  lints?: number;
  searches?: number;
  old?: boolean;
  oldLints?: number;
  /** The old all-pairs queries are quadratic: above this many cards they are not run. */
  oldMax?: number;
  log?: (line: string) => void;
}

interface Latency {
  n: number;
  p50: number;
  p95: number;
  max: number;
  errors: string[];
}

const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ms0 = (ms: number) => `${ms.toFixed(0)} ms`;

/** The two all-pairs statements lint ran before (services/curation/lint.ts and lint-hooks.ts at 587759e). */
async function oldAllPairs(ctx: BrainContext, vectors: boolean): Promise<{ titleMs: number; embeddingMs: number | null }> {
  const s = ctx.subject.name;
  const t = (name: string) => sql.table(`${s}.${name}`);
  let started = performance.now();
  await sql`
    SELECT a.slug AS a, b.slug AS b, round(brain_ext.similarity(lower(a.title), lower(b.title))::numeric, 2)::float AS similarity
      FROM ${t('topics')} a JOIN ${t('topics')} b ON a.id < b.id
     WHERE brain_ext.similarity(lower(a.title), lower(b.title)) >= ${0.6}
     ORDER BY similarity DESC, a.slug LIMIT ${100}`.execute(ctx.db);
  const titleMs = performance.now() - started;
  if (!vectors) return { titleMs, embeddingMs: null };
  const m = SEED_EMBEDDER();
  started = performance.now();
  await sql`
    SELECT ta.slug AS a, tb.slug AS b, round((1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::numeric, 2)::float AS similarity
      FROM ${t('chunks')} ca JOIN ${t('chunks')} cb ON ca.topic_id < cb.topic_id AND cb.chunk_index = 0 AND cb.model = ca.model
      JOIN ${t('topics')} ta ON ta.id = ca.topic_id JOIN ${t('topics')} tb ON tb.id = cb.topic_id
     WHERE ca.chunk_index = 0 AND ca.model = ${m.model} AND ca.dims = ${m.dimensions}
       AND 1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding) >= ${0.9}
     ORDER BY similarity DESC LIMIT ${100}`.execute(ctx.db);
  return { titleMs, embeddingMs: performance.now() - started };
}

/** Searches one after another until `until` settles (at least `min` of them), timed. */
async function searchWhile(ctx: BrainContext, words: string[], vectors: boolean, until: Promise<unknown> | null, min: number): Promise<Latency> {
  const embedder = vectors ? SEED_EMBEDDER() : undefined;
  const status = embedder ? { state: 'ok' as const, pending: 0, model: embedder.model, dims: embedder.dimensions } : undefined;
  let done = until === null;
  void until?.finally(() => (done = true));
  const times: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < min || !done; i++) {
    const started = performance.now();
    try {
      await search(ctx, { query: words[i % words.length]!, mode: vectors ? 'hybrid' : 'keyword' }, { embedder, embedderStatus: status });
    } catch (error) {
      errors.push(error instanceof BrainError ? `${error.code}: ${error.message}` : String(error));
    }
    times.push(performance.now() - started);
    // As requests arriving over the network would: in the embedded brain every await of a
    // query resolves without a turn of the event loop, so a tight loop of searches would keep
    // lint (which waits for a turn between batches) from ever running.
    await setImmediate();
  }
  return { n: times.length, p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times), errors };
}

const latencyLine = (l: Latency) => `${l.n} searches p50 ${ms0(l.p50)} p95 ${ms0(l.p95)} max ${ms0(l.max)}${l.errors.length ? `, ${l.errors.length} FAILED (${l.errors[0]})` : ''}`;

export async function runLintBench(opts: LintBenchOptions = {}): Promise<void> {
  const log = opts.log ?? console.log;
  const sizes = opts.sizes ?? [2_700, 10_000];
  const nLints = opts.lints ?? 5;
  const nSearches = opts.searches ?? 30;
  const targets: { name: string; open: () => Promise<BenchBrain> }[] = opts.serverOnly && opts.server ? [] : [{ name: 'embedded', open: () => embeddedBenchBrain() }];
  if (opts.server) targets.push({ name: 'server', open: () => serverBenchBrain(opts.server!) });
  for (const target of targets) {
    for (const size of sizes) {
      const brain = await target.open();
      try {
        const vectors = brain.report.features.includes('vector');
        let started = performance.now();
        const seeded = await seedLintSubject(brain.admin, 'homelab', { topics: size, vectors });
        log(`${brain.label}, ${size} cards (${seeded.links} links, ${seeded.tags} tags${vectors ? ', 512-d vectors' : ', no pgvector: titles only'}): seeded in ${s1(performance.now() - started)}`);
        const ctx = await brain.context('homelab');
        const hooks: LintEmbeddingHooks = vectors ? embeddingLintHooks(SEED_EMBEDDER()) : {};
        const words = (await brain.admin.query<{ title: string }>('SELECT title FROM homelab.topics ORDER BY id LIMIT 200')).map((r) => r.title.split(' ').slice(0, 2).join(' '));

        // One lint, alone.
        const perCheck = new Map<string, { ms: number; statements: number }>();
        let longest = { check: '', ms: 0 };
        started = performance.now();
        const report = await lint(ctx, {}, hooks, {
          onStep: ({ check, ms }) => {
            const c = perCheck.get(check) ?? { ms: 0, statements: 0 };
            perCheck.set(check, { ms: c.ms + ms, statements: c.statements + 1 });
            if (ms > longest.ms) longest = { check, ms };
          },
        });
        const lintMs = performance.now() - started;
        const dup = report.duplicateTopics;
        log(
          `    lint: ${s1(lintMs)}; ${dup.length} near-duplicates judged (${dup.filter((d) => d.verdict === 'same').length} likely the same; limit 100), ${report.deadLinks.length} dead links; longest statement ${ms0(longest.ms)} (${longest.check})`,
        );
        log(`    per check: ${[...perCheck].map(([check, c]) => `${check} ${ms0(c.ms)}/${c.statements}`).join(', ')}`);

        const alone = await searchWhile(ctx, words, vectors, null, nSearches);
        log(`    search alone: ${latencyLine(alone)}`);

        // Several lints at once, searches meanwhile.
        started = performance.now();
        const outcomes = Array.from({ length: nLints }, () =>
          lint(ctx, {}, hooks).then(
            () => 'report',
            (e: unknown) => (e instanceof BrainError && e.details.reason === 'busy' ? 'busy' : `error: ${String(e)}`),
          ),
        );
        const all = Promise.all(outcomes);
        const loaded = await searchWhile(ctx, words, vectors, all, nSearches);
        const results = await all;
        const count = (what: string) => results.filter((r) => r === what).length;
        log(`    ${nLints} lints at once: ${count('report')} reported, ${count('busy')} told busy, ${results.length - count('report') - count('busy')} failed; all answered in ${s1(performance.now() - started)}`);
        log(`    search during them: ${latencyLine(loaded)}`);

        if (opts.old && size <= (opts.oldMax ?? 3_000)) {
          const old = await oldAllPairs(ctx, vectors);
          log(`    before (all-pairs queries): titles ${s1(old.titleMs)}${old.embeddingMs === null ? '' : `, embeddings ${s1(old.embeddingMs)}`}, one statement each`);
          const nOld = opts.oldLints ?? 1;
          started = performance.now();
          const oldAll = Promise.allSettled(Array.from({ length: nOld }, () => oldAllPairs(ctx, vectors)));
          const oldLoaded = await searchWhile(ctx, words, vectors, oldAll, 1);
          await oldAll;
          log(`    before, search during ${nOld} old lint(s) at once (${s1(performance.now() - started)}): ${latencyLine(oldLoaded)}`);
        }
      } finally {
        await brain.close();
      }
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      server: { type: 'string' },
      'server-only': { type: 'boolean', default: false },
      lints: { type: 'string' },
      searches: { type: 'string' },
      old: { type: 'boolean', default: false },
      'old-lints': { type: 'string' },
      'old-max': { type: 'string' },
    },
  });
  await runLintBench({
    ...(values.sizes ? { sizes: values.sizes.split(',').map(Number) } : {}),
    server: values.server,
    serverOnly: values['server-only'],
    ...(values.lints ? { lints: Number(values.lints) } : {}),
    ...(values.searches ? { searches: Number(values.searches) } : {}),
    old: values.old,
    ...(values['old-lints'] ? { oldLints: Number(values['old-lints']) } : {}),
    ...(values['old-max'] ? { oldMax: Number(values['old-max']) } : {}),
  });
}
