// Relevance of keyword, semantic and hybrid search on the hand-built set, with the offline
// embedder (USE-lite) on the embedded brain: recall@5 and nDCG@10, overall and per question
// style. Also sweeps the RRF constant, to show how much (or little) it matters. Prints
// numbers only.
//
//   npm run build && node dist/bench/search/relevance.js [--small]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic } from '../../services/knowledge/topics.js';
import { reciprocalRankFusion } from '../../services/search/fusion.js';
import { RANKING } from '../../services/search/ranking.js';

const KEYWORD_WEIGHT = RANKING.keywordWeight;
const RRF_K = RANKING.rrfK;
import { embedStale } from '../../services/search/reembed.js';
import { rankedSearch, type SearchMode } from '../../services/search/search.js';
import { embeddedBenchBrain } from './brain.js';
import { ndcgAt, recallAt } from './metrics.js';
import { CARDS, QUERIES, type BenchQuery } from './relevance-set.js';

export interface RelevanceRow {
  mode: SearchMode;
  recallAt5: number;
  ndcgAt10: number;
  byStyle: Record<BenchQuery['style'], { recallAt5: number; ndcgAt10: number; n: number }>;
}

export interface RelevanceReport {
  cards: number;
  queries: number;
  /** Paraphrase questions that nevertheless share a lexeme with a relevant card (should be 0). */
  paraphraseLeaks: string[];
  rows: RelevanceRow[];
  rrfSweep: { k: number; recallAt5: number; ndcgAt10: number }[];
  weightSweep: { keywordWeight: number; recallAt5: number; ndcgAt10: number }[];
  embedSeconds: number;
}

export async function runRelevance(opts: { small?: boolean; embedder?: Embedder; log?: (line: string) => void } = {}): Promise<RelevanceReport> {
  const log = opts.log ?? console.log;
  const queries = opts.small ? QUERIES.filter((_, i) => i % 6 === 0) : QUERIES;
  const wanted = new Set(queries.flatMap((q) => q.relevant));
  const cards = opts.small ? CARDS.filter((c, i) => wanted.has(c.slug) || i % 8 === 0) : CARDS;
  const embedder = opts.embedder ?? new OfflineEmbedder();
  const brain = await embeddedBenchBrain();
  try {
    const ctx = await brain.context('homelab');
    for (const card of cards) await createTopic(ctx, { slug: card.slug, kind: card.kind, title: card.title, body: card.body });
    const t = performance.now();
    await embedStale(ctx, embedder);
    const embedSeconds = (performance.now() - t) / 1000;

    const paraphraseLeaks: string[] = [];
    for (const q of queries.filter((x) => x.style === 'paraphrase')) {
      const r = await rankedSearch(ctx, { query: q.query, mode: 'keyword', limit: 50 }, {});
      const slugs = await slugsOf(brain.admin, r.keyword.map((h) => h.id));
      if (q.relevant.some((s) => slugs.includes(s))) paraphraseLeaks.push(q.query);
    }

    // One keyword and one vector list per query; the modes and the sweep are computed from them.
    const lists: { q: BenchQuery; keyword: string[]; vector: string[] }[] = [];
    for (const q of queries) {
      const r = await rankedSearch(ctx, { query: q.query, limit: 20, includeEpisodes: false }, { embedder });
      lists.push({ q, keyword: await slugsOf(brain.admin, r.keyword.map((h) => h.id)), vector: await slugsOf(brain.admin, r.vector.map((h) => h.id)) });
    }
    // The same fusion search() uses; the slug stands in for the card reference.
    const asRefs = (slugs: string[]) => slugs.map((slug) => ({ subject: slug, entity: 'topic' as const, id: 0 }));
    const fuse = (l: (typeof lists)[number], k: number, keywordWeight = KEYWORD_WEIGHT) =>
      reciprocalRankFusion([{ hits: asRefs(l.keyword), weight: keywordWeight }, { hits: asRefs(l.vector) }], k).map((f) => f.ref.subject);
    const rankedBy: Record<SearchMode, (l: (typeof lists)[number]) => string[]> = {
      keyword: (l) => l.keyword,
      semantic: (l) => l.vector,
      hybrid: (l) => fuse(l, RRF_K),
    };
    const rows: RelevanceRow[] = (['keyword', 'semantic', 'hybrid'] as const).map((mode) => score(mode, lists.map((l) => ({ q: l.q, ranked: rankedBy[mode](l) }))));
    const rrfSweep = [5, 10, 20, 40, 60, 100, 200].map((k) => {
      const r = score('hybrid', lists.map((l) => ({ q: l.q, ranked: fuse(l, k) })));
      return { k, recallAt5: r.recallAt5, ndcgAt10: r.ndcgAt10 };
    });
    const weightSweep = [0.3, 0.5, 0.7, 0.8, 0.9, 1].map((w) => {
      const r = score('hybrid', lists.map((l) => ({ q: l.q, ranked: fuse(l, RRF_K, w) })));
      return { keywordWeight: w, recallAt5: r.recallAt5, ndcgAt10: r.ndcgAt10 };
    });

    log(`relevance set: ${cards.length} cards, ${queries.length} questions (${embedder.model}, embedded in ${embedSeconds.toFixed(1)} s)`);
    if (paraphraseLeaks.length > 0) log(`  note: ${paraphraseLeaks.length} paraphrase(s) share a word with their card: ${paraphraseLeaks.join(' | ')}`);
    log('  mode       recall@5  nDCG@10   | keyword-style  question-style  paraphrase (recall@5 / nDCG@10)');
    for (const r of rows) {
      const s = (k: BenchQuery['style']) => (r.byStyle[k].n === 0 ? '     -     ' : `${fmt(r.byStyle[k].recallAt5)} / ${fmt(r.byStyle[k].ndcgAt10)}`);
      log(`  ${r.mode.padEnd(9)}  ${fmt(r.recallAt5)}     ${fmt(r.ndcgAt10)}     | ${s('keyword')}    ${s('question')}     ${s('paraphrase')}`);
    }
    log(`  RRF constant sweep (hybrid, keyword weight ${KEYWORD_WEIGHT}): ${rrfSweep.map((x) => `k=${x.k}: ${fmt(x.recallAt5)}/${fmt(x.ndcgAt10)}`).join('  ')}`);
    log(`  keyword-list weight sweep (hybrid, k=${RRF_K}): ${weightSweep.map((x) => `${x.keywordWeight}: ${fmt(x.recallAt5)}/${fmt(x.ndcgAt10)}`).join('  ')}`);
    return { cards: cards.length, queries: queries.length, paraphraseLeaks, rows, rrfSweep, weightSweep, embedSeconds };
  } finally {
    await brain.close();
  }
}

/** The slugs of homelab topics by id, in the order given. */
export async function slugsOf(admin: { query<R>(text: string, params?: readonly unknown[]): Promise<R[]> }, ids: number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await admin.query<{ id: number; slug: string }>('SELECT id, slug FROM homelab.topics WHERE id = ANY($1::bigint[])', [ids]);
  const byId = new Map(rows.map((r) => [Number(r.id), r.slug]));
  return ids.map((id) => byId.get(id)!).filter(Boolean);
}

function score(mode: SearchMode, results: { q: BenchQuery; ranked: string[] }[]): RelevanceRow {
  const styles: BenchQuery['style'][] = ['keyword', 'question', 'paraphrase'];
  const avg = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const byStyle = Object.fromEntries(
    styles.map((st) => {
      const sel = results.filter((r) => r.q.style === st);
      return [st, { recallAt5: avg(sel.map((r) => recallAt(5, r.ranked, r.q.relevant))), ndcgAt10: avg(sel.map((r) => ndcgAt(10, r.ranked, r.q.relevant))), n: sel.length }];
    }),
  ) as RelevanceRow['byStyle'];
  return {
    mode,
    recallAt5: avg(results.map((r) => recallAt(5, r.ranked, r.q.relevant))),
    ndcgAt10: avg(results.map((r) => ndcgAt(10, r.ranked, r.q.relevant))),
    byStyle,
  };
}

const fmt = (x: number) => x.toFixed(3);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { small: { type: 'boolean', default: false } } });
  await runRelevance({ small: values.small });
}
