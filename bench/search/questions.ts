// Ranking and the relevance floor on the labelled question set (bench/questions/): a few thousand
// cards (conversational episodes among them) in three subjects, questions of nine styles with
// the cards that answer them, and nonsense questions that must come back empty. Offline
// embedder, embedded brain. Prints:
//   1. recall@5 / recall@10 per mode and style, for today's ranking (before this bench) and the
//      ranking in services/search/ranking.ts, from the product's own keyword and vector lists;
//   2. sweeps of each ranking constant around the chosen values;
//   3. the relevance model fitted on the hits' evidence (services/search/relevance.ts), and the
//      floor that leaves at least 95% of nonsense questions empty;
//   4. the product path: search() as the MCP tool calls it, with the shipped constants.
//
//   npm run build && node dist/bench/search/questions.js [--small]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import type { BrainContext } from '../../services/knowledge/context.js';
import { recordEpisode } from '../../services/knowledge/episodes.js';
import { createTopic } from '../../services/knowledge/topics.js';
import { RELEVANCE_MODELS } from '../../services/search/calibration.js';
import { reciprocalRankFusion } from '../../services/search/fusion.js';
import { RANKING, type Ranking } from '../../services/search/ranking.js';
import { embedStale } from '../../services/search/reembed.js';
import { gatherEvidence, NO_EVIDENCE, type Evidence } from '../../services/search/relevance.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../services/search/selectivity.js';
import { applyBoosts, DEFAULT_LIMIT, rankedSearch, search, type RankedRef } from '../../services/search/search.js';
import { cardKey, type SearchFilters } from '../../services/search/types.js';
import { vectorSearch, type VectorHit } from '../../services/search/vectors.js';
import { questionSet, type SetCard, type SetQuestion } from '../questions/question-set.js';
import { embeddedBenchBrain } from './brain.js';
import { fitLogistic, sigmoid, type Example } from './logistic.js';
import { recallAt } from './metrics.js';

/** Today's ranking before this bench: what the product shipped (normalisation 1, weight 0.8, depth max(50, 5 x limit), no boosts, titled episode chunks). */
const BEFORE: Ranking = Object.freeze({ rankNormalisation: 1, keywordWeight: 0.8, rrfK: 60, fusionDepth: 50, vectorChunksPerCard: 2, recencyWeight: 0, recencyHalfLifeDays: 90, kindBoost: 0 });
const LIST_DEPTH = 200;
const NORMALISATIONS = [0, 1, 2, 4, 8, 32];
/** Keyword planning (selectivity.ts) other than shipped, fused as shipped: what a change of its limits does to answers. */
const PLAN_VARIANTS: Record<string, PlanLimits> = {
  'plan: never planned': { ...DEFAULT_PLAN_LIMITS, rankAll: Infinity },
  'plan: budget 3000, rerank x10': { ...DEFAULT_PLAN_LIMITS, budget: 3_000, rerankFactor: 10 },
  'plan: budget 2000, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 2_000, rerankFactor: 2 },
  'plan: budget 1500, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 1_500, rerankFactor: 2 },
};
/** No filter: every kind, tag and date, topics and episodes. */
const ALL_CARDS: SearchFilters = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: true, includeTopics: true };

interface Lists {
  q: SetQuestion;
  ctx: BrainContext;
  /** Keyword lists by ts_rank_cd normalisation. */
  keyword: Map<number, RankedRef[]>;
  /** Keyword lists (shipped normalisation) under other plan limits than selectivity.ts's, by PLAN_VARIANTS name. */
  keywordByPlan: Map<string, RankedRef[]>;
  vector: VectorHit[];
  queryVector?: { embedding: number[]; model: string; dims: number };
  vectorSubjects: string[];
}

const fmt = (x: number) => x.toFixed(3);
const avg = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export async function runQuestions(opts: { small?: boolean; embedder?: Embedder; log?: (line: string) => void } = {}): Promise<void> {
  const log = opts.log ?? console.log;
  const set = questionSet();
  const questions = opts.small ? set.questions.filter((_, i) => i % 5 === 0) : set.questions;
  const wanted = new Set(questions.flatMap((q) => q.relevant));
  const cards = opts.small ? set.cards.filter((c, i) => wanted.has(c.key) || i % 6 === 0) : set.cards;
  const embedder = opts.embedder ?? new OfflineEmbedder();
  const brain = await embeddedBenchBrain({ subjects: ['personal', 'homelab', 'novel'] });
  try {
    const contexts = new Map<string, BrainContext>();
    const ctxOf = async (s: string) => contexts.get(s) ?? contexts.set(s, await brain.context(s)).get(s)!;
    const keyOf = await load(cards, ctxOf);
    await brain.restart(); // analysed, as a brain in use is; the contexts taken so far are closed
    contexts.clear();
    const subjects = [...new Set(cards.map((c) => c.subject))];
    let t = performance.now();
    for (const s of subjects) await embedStale(await ctxOf(s), embedder);
    log(`question set: ${cards.length} cards (${cards.filter((c) => c.entity === 'episode').length} episodes), ${questions.length} questions, ${embedder.model}; embedded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    const lists: Lists[] = [];
    for (const q of questions) {
      const ctx = await ctxOf(q.from);
      const keyword = new Map<number, RankedRef[]>();
      for (const norm of NORMALISATIONS) keyword.set(norm, (await rankedSearch(ctx, { query: q.query, mode: 'keyword', limit: 100 }, { ranking: { rankNormalisation: norm, recencyWeight: 0, kindBoost: 0, fusionDepth: LIST_DEPTH } })).keyword);
      // At the shipped fusion depth: how many cards a plan ranks is a multiple of it.
      const keywordByPlan = new Map<string, RankedRef[]>();
      for (const [name, limits] of Object.entries(PLAN_VARIANTS)) keywordByPlan.set(name, (await rankedSearch(ctx, { query: q.query, mode: 'keyword', limit: 100 }, { keywordPlanLimits: limits, ranking: { recencyWeight: 0, kindBoost: 0 } })).keyword);
      const sem = await rankedSearch(ctx, { query: q.query, mode: 'semantic', limit: 100 }, { embedder, queryEmbedTimeoutMs: 120_000, ranking: { fusionDepth: LIST_DEPTH } });
      lists.push({ q, ctx, keyword, keywordByPlan, vector: sem.vector, vectorSubjects: sem.vectorSubjects, ...(sem.queryVector ? { queryVector: sem.queryVector } : {}) });
    }

    const keysOf = (refs: readonly RankedRef[]) => refs.map((r) => keyOf.get(cardKey(r))!).filter(Boolean);
    const real = lists.filter((l) => l.q.relevant.length > 0);
    const nonsense = lists.filter((l) => l.q.relevant.length === 0);
    const hybrid = (l: Lists, r: Ranking) => {
      const fused = reciprocalRankFusion<RankedRef>(
        [
          { hits: l.keyword.get(r.rankNormalisation)!.slice(0, r.fusionDepth), weight: r.keywordWeight },
          { hits: l.vector.slice(0, r.fusionDepth) },
        ],
        r.rrfK,
      ).map((f) => ({ ref: f.ref, score: f.score }));
      return applyBoosts(fused, l.ctx, l.q.query, r).map((f) => f.ref);
    };
    const keywordOnly = (l: Lists, r: Ranking) => applyBoosts(l.keyword.get(r.rankNormalisation)!.map((h, i) => ({ ref: h, score: 1 / (i + 1) })), l.ctx, l.q.query, r).map((f) => f.ref);
    const semanticOnly = (l: Lists, r: Ranking) => applyBoosts(l.vector.map((h) => ({ ref: h, score: 1 - h.distance })), l.ctx, l.q.query, r).map((f) => f.ref);
    const recall = (rank: (l: Lists) => RankedRef[], k: number, sel = real) => avg(sel.map((l) => recallAt(k, keysOf(rank(l)), l.q.relevant)));
    const row = (label: string, rank: (l: Lists) => RankedRef[]) => {
      const styles = [...new Set(real.map((l) => l.q.style))];
      const per = styles.map((s) => `${s} ${fmt(recall(rank, 10, real.filter((l) => l.q.style === s)))}`).join('  ');
      log(`  ${label.padEnd(44)} ${fmt(recall(rank, 5))}    ${fmt(recall(rank, 10))}    | ${per}`);
    };

    log(`\n1. recall@5 / recall@10 over ${real.length} answerable questions (per style: recall@10)`);
    row('before: keyword (norm 1)', (l) => keywordOnly(l, BEFORE));
    row('before: semantic', (l) => semanticOnly(l, BEFORE));
    row('before: hybrid', (l) => hybrid(l, BEFORE));
    row('now: keyword', (l) => keywordOnly(l, RANKING));
    row('now: semantic', (l) => semanticOnly(l, RANKING));
    row('now: hybrid', (l) => hybrid(l, RANKING));
    for (const name of Object.keys(PLAN_VARIANTS)) {
      const planned = (l: Lists): Lists => ({ ...l, keyword: new Map([[RANKING.rankNormalisation, l.keywordByPlan.get(name)!]]) });
      row(`${name}: keyword`, (l) => keywordOnly(planned(l), RANKING));
      row(`${name}: hybrid`, (l) => hybrid(planned(l), RANKING));
    }

    log('\n2. sweeps (hybrid, one constant at a time around ranking.ts; recall@5 / recall@10)');
    const sweep = (name: keyof Ranking, values: number[]) =>
      log(`  ${name.padEnd(20)} ${values.map((v) => `${v}: ${fmt(recall((l) => hybrid(l, { ...RANKING, [name]: v }), 5))}/${fmt(recall((l) => hybrid(l, { ...RANKING, [name]: v }), 10))}`).join('  ')}`);
    sweep('rankNormalisation', NORMALISATIONS);
    sweep('keywordWeight', [0.5, 0.7, 0.8, 1, 1.2, 1.5]);
    sweep('rrfK', [10, 20, 40, 60, 100]);
    sweep('fusionDepth', [20, 50, 100, 200]);
    sweep('recencyWeight', [0, 0.05, 0.1, 0.2, 0.4]);
    sweep('recencyHalfLifeDays', [30, 90, 180, 365]);
    sweep('kindBoost', [0, 0.1, 0.2, 0.4, 0.8]);
    log('  joint grid (rrfK x fusionDepth x keywordWeight), best ten by recall@10 then @5:');
    const grid: { r: Ranking; r5: number; r10: number }[] = [];
    for (const rrfK of [5, 10, 20, 40]) for (const fusionDepth of [10, 20, 30, 50, 100]) for (const keywordWeight of [0.8, 1, 1.2, 1.5]) {
      const r = { ...RANKING, rrfK, fusionDepth, keywordWeight };
      grid.push({ r, r5: recall((l) => hybrid(l, r), 5), r10: recall((l) => hybrid(l, r), 10) });
    }
    grid.sort((a, b) => b.r10 - a.r10 || b.r5 - a.r5);
    for (const g of grid.slice(0, 10)) log(`    k ${g.r.rrfK}, depth ${g.r.fusionDepth}, keyword weight ${g.r.keywordWeight}: ${fmt(g.r5)}/${fmt(g.r10)}`);
    // The vector list as search reads it (fusionDepth cards from fusionDepth x vectorChunksPerCard
    // nearest chunks: the HNSW search's cost), fused with the keyword list as shipped.
    const asSearchReads = async (r: Ranking): Promise<string> => {
      const shallow = new Map<Lists, RankedRef[]>();
      for (const l of lists) {
        if (!l.queryVector) continue;
        const chunkLimit = Math.ceil(r.fusionDepth * r.vectorChunksPerCard);
        shallow.set(l, await vectorSearch(l.ctx.db, l.vectorSubjects, { ...l.queryVector, chunkLimit }, ALL_CARDS, r.fusionDepth));
      }
      const fused = (l: Lists) => hybrid({ ...l, vector: (shallow.get(l) as VectorHit[] | undefined) ?? [] }, r);
      return `${fmt(recall(fused, 5))}/${fmt(recall(fused, 10))}`;
    };
    const vectorDepth: string[] = [];
    for (const perCard of [1, 1.5, 2, 3]) vectorDepth.push(`${perCard}: ${await asSearchReads({ ...RANKING, vectorChunksPerCard: perCard })}`);
    log(`  vectorChunksPerCard  ${vectorDepth.join('  ')}`);
    // fusionDepth again, with the vector list as search reads it at that depth (fewer chunks from the HNSW index, not a slice of a deep list).
    const fusionDepths: string[] = [];
    for (const fusionDepth of [20, 30, 40, 50]) fusionDepths.push(`${fusionDepth}: ${await asSearchReads({ ...RANKING, fusionDepth })}`);
    log(`  fusionDepth, as search reads it  ${fusionDepths.join('  ')}`);
    const styleOf = (style: string, r: Ranking) => `${fmt(recall((l) => hybrid(l, r), 5, real.filter((l) => l.q.style === style)))}/${fmt(recall((l) => hybrid(l, r), 10, real.filter((l) => l.q.style === style)))}`;
    log(`  boosts on the styles they serve: recent (recencyWeight 0 / 0.05 / 0.1 / 0.2): ${[0, 0.05, 0.1, 0.2].map((w) => styleOf('recent', { ...RANKING, recencyWeight: w })).join('  ')}`);
    log(`                                    kind (kindBoost 0 / 0.1 / 0.2 / 0.4): ${[0, 0.1, 0.2, 0.4].map((b) => styleOf('kind', { ...RANKING, kindBoost: b })).join('  ')}`);

    // 3. Relevance: the evidence of the top candidates, labelled by the set.
    const TOP = 20;
    const judged: { l: Lists; key: string; relevant: boolean; e: Evidence }[] = [];
    const judgedKeyword: typeof judged = [];
    for (const l of lists) {
      for (const [mode, out] of [['hybrid', judged], ['keyword', judgedKeyword]] as const) {
        const refs = (mode === 'hybrid' ? hybrid(l, RANKING) : keywordOnly(l, RANKING)).slice(0, TOP);
        const ev = await gatherEvidence(l.ctx.db, refs, { text: l.q.query.replace(/"/g, ' '), vector: mode === 'hybrid' ? l.queryVector : undefined, subjectsWithVectors: l.vectorSubjects });
        for (const r of refs) {
          const key = keyOf.get(cardKey(r))!;
          out.push({ l, key, relevant: l.q.relevant.includes(key), e: ev.get(cardKey(r)) ?? NO_EVIDENCE });
        }
      }
    }
    if (process.env.BENCH_DUMP) {
      // For analysis outside the bench: every question's first candidates with their evidence and ranks in each list.
      const { writeFileSync } = await import('node:fs');
      const rankIn = (list: readonly RankedRef[], key: string) => list.findIndex((r) => keyOf.get(cardKey(r)) === key) + 1 || null;
      const dump = lists.map((l) => ({
        query: l.q.query,
        style: l.q.style,
        relevant: l.q.relevant,
        hits: judged.filter((j) => j.l === l).map((j) => ({ key: j.key, relevant: j.relevant, ...j.e, keywordRank: rankIn(l.keyword.get(RANKING.rankNormalisation)!, j.key), vectorRank: rankIn(l.vector, j.key) })),
      }));
      writeFileSync(process.env.BENCH_DUMP, JSON.stringify(dump));
    }
    const cos = (e: Evidence) => e.cosine ?? 0;
    const full = fitLogistic(judged.map((j) => ({ x: [j.e.coverage, cos(j.e), j.e.lift], y: j.relevant ? 1 : 0 }) satisfies Example));
    const kw = fitLogistic(judgedKeyword.map((j) => ({ x: [j.e.coverage], y: j.relevant ? 1 : 0 }) satisfies Example));
    log(`\n3. relevance (logistic on the top ${TOP} candidates' evidence): hybrid bias ${fmt(full[0]!)} coverage ${fmt(full[1]!)} cosine ${fmt(full[2]!)} lift ${fmt(full[3]!)}; keyword-only bias ${fmt(kw[0]!)} coverage ${fmt(kw[1]!)}`);
    const pos = judged.filter((j) => j.relevant);
    const neg = judged.filter((j) => !j.relevant);
    const ev = (xs: typeof judged) => `coverage ${fmt(avg(xs.map((j) => j.e.coverage)))} cosine ${fmt(avg(xs.map((j) => cos(j.e))))} lift ${fmt(avg(xs.map((j) => j.e.lift)))}`;
    log(`  evidence of relevant hits: ${ev(pos)}; others: ${ev(neg)}; best hit of nonsense questions: ${ev(nonsense.map((l) => judged.find((j) => j.l === l)!).filter(Boolean))}`);
    const floorTable = (label: string, rows: typeof judged, w: number[], features: (e: Evidence) => number[]) => {
      const rel = (e: Evidence) => sigmoid(w.reduce((s, wi, i) => s + wi * (i === 0 ? 1 : features(e)[i - 1]!), 0));
      const companions = [0, 0.25, 0.5, 1];
      log(`  ${label}: floor -> nonsense empty | recall@10 kept with companions at ${companions.map((c) => `floor x ${c}`).join(' / ')}`);
      let chosen: number | undefined;
      for (const floor of [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7]) {
        const best = (l: Lists) => Math.max(0, ...rows.filter((j) => j.l === l).map((j) => rel(j.e)));
        const empty = avg(nonsense.map((l) => (best(l) >= floor ? 0 : 1)));
        const kept = companions.map((c) => avg(real.map((l) => (best(l) < floor ? 0 : recallAt(10, rows.filter((j) => j.l === l && rel(j.e) >= floor * c).map((j) => j.key), l.q.relevant)))));
        if (chosen === undefined && empty >= 0.95) chosen = floor;
        log(`    ${floor.toFixed(2)}  ${fmt(empty)} | ${kept.map(fmt).join(' / ')}${chosen === floor ? '   <- lowest floor with >= 95% empty' : ''}`);
      }
    };
    floorTable('hybrid', judged, full, (e) => [e.coverage, cos(e), e.lift]);
    // A question-level gate: answered when some candidate covers enough of it, or stands out by meaning.
    log('  question gate (best coverage >= c, or best lift >= l): nonsense empty / recall@10 of the rest');
    const bestOf = (l: Lists, f: (e: Evidence) => number) => Math.max(0, ...judged.filter((j) => j.l === l).map((j) => f(j.e)));
    for (const c of [0.3, 0.4, 0.5, 0.6, 0.7]) {
      const cells = [0.04, 0.06, 0.08, 0.1, 0.15, Infinity].map((lift) => {
        const open = (l: Lists) => bestOf(l, (e) => e.coverage) >= c || bestOf(l, (e) => e.lift) >= lift;
        const empty = avg(nonsense.map((l) => (open(l) ? 0 : 1)));
        const kept = avg(real.map((l) => (open(l) ? recallAt(10, judged.filter((j) => j.l === l).map((j) => j.key), l.q.relevant) : 0)));
        return `lift ${lift}: ${fmt(empty)}/${fmt(kept)}`;
      });
      log(`    coverage ${c}: ${cells.join('  ')}`);
    }
    floorTable('keyword-only', judgedKeyword, kw, (e) => [e.coverage]);

    // 4. The product path, with the shipped constants and calibration.
    const model = RELEVANCE_MODELS[embedder.model.split(':')[0]!];
    log(`\n4. search() as shipped (${model ? `relevance model of ${embedder.model}` : 'no relevance model for this embedder'}; limit ${DEFAULT_LIMIT} unless said)`);
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      const got = new Map<Lists, string[]>();
      const named = new Map<Lists, string[]>();
      const gotDefault = new Map<Lists, string[]>();
      for (const l of lists) {
        const key = (h: { subject: string; type: 'topic' | 'episode'; id: number }) => keyOf.get(cardKey({ subject: h.subject, entity: h.type, id: h.id }))!;
        const ask = (limit?: number) => search(l.ctx, { query: l.q.query, mode, ...(limit ? { limit } : {}) }, { embedder, queryEmbedTimeoutMs: 120_000 });
        const r = await ask(10);
        got.set(l, r.hits.map(key));
        named.set(l, [...r.hits, ...(r.weakMatches ?? [])].map(key));
        gotDefault.set(l, (await ask()).hits.map(key));
      }
      const r5 = avg(real.map((l) => recallAt(5, got.get(l)!, l.q.relevant)));
      const r10 = avg(real.map((l) => recallAt(10, got.get(l)!, l.q.relevant)));
      const rn = avg(real.map((l) => recallAt(13, named.get(l)!, l.q.relevant)));
      const rd = avg(real.map((l) => recallAt(10, gotDefault.get(l)!, l.q.relevant)));
      const shown = avg(real.map((l) => gotDefault.get(l)!.length));
      const gated = real.filter((l) => got.get(l)!.length === 0).length;
      const empty = avg(nonsense.map((l) => (got.get(l)!.length === 0 ? 1 : 0)));
      log(`  ${mode.padEnd(8)} recall@5 ${fmt(r5)}  recall@10 ${fmt(r10)} (with the weak guesses named: ${fmt(rn)}; ${gated} answerable questions answered "nothing relevant") | no limit: recall ${fmt(rd)} with ${shown.toFixed(1)} hits on average | nonsense "nothing relevant" ${fmt(empty)} (${nonsense.length})`);
    }
  } finally {
    await brain.close();
  }
}

/** Writes the set through the product's services; returns cardKey -> the set's key. */
async function load(cards: readonly SetCard[], ctxOf: (s: string) => Promise<BrainContext>): Promise<Map<string, string>> {
  const keyOf = new Map<string, string>();
  for (const c of cards) {
    const ctx = await ctxOf(c.subject);
    if (c.entity === 'topic') {
      const t = await createTopic(ctx, { slug: c.key, kind: c.kind, title: c.title, summary: c.summary ?? '', body: c.body, tags: c.tags ?? [] });
      keyOf.set(cardKey({ subject: c.subject, entity: 'topic', id: t.id }), c.key);
    } else {
      const e = await recordEpisode(ctx, { kind: c.kind, title: c.title, summary: c.summary ?? '', detail: c.body, occurredAt: c.occurredAt! });
      keyOf.set(cardKey({ subject: c.subject, entity: 'episode', id: e.id }), c.key);
    }
  }
  return keyOf;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { small: { type: 'boolean', default: false } } });
  await runQuestions({ small: values.small });
}
