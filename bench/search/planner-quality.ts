// Does planning keyword search on big tables (services/search/selectivity.ts) cost relevance?
// The 64 hand-written cards of the relevance set are hidden among N distractor cards made of
// the same vocabulary (their words, drawn as often as the set uses them), so the questions'
// common words are common in the brain too; after an ANALYZE, every question is asked in
// keyword mode twice, planned as search does and never planned (every matching card ranked
// by ts_rank_cd), and recall@5, nDCG@10 and latency are compared. Prints numbers only.
//
//   npm run build && node dist/bench/search/planner-quality.js [--small] [--details] [--distractors 20000]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createTopic } from '../../services/knowledge/topics.js';
import { rankedSearch } from '../../services/search/search.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../services/search/selectivity.js';
import { embeddedBenchBrain } from './brain.js';
import { ndcgAt, percentile, recallAt } from './metrics.js';
import { mulberry32 } from '../prng.js';
import { CARDS, QUERIES } from './relevance-set.js';
import { slugsOf } from './relevance.js';

export interface PlannerQualityRow {
  variant: string;
  recallAt5: number;
  ndcgAt10: number;
  p50: number;
  p95: number;
  /** Questions whose search was planned in the cards' table. */
  planned: number;
}

export interface PlannerQualityReport {
  distractors: number;
  questions: number;
  rows: PlannerQualityRow[];
}

const VARIANTS: Record<string, PlanLimits | undefined> = {
  planned: undefined,
  'no word dropped': { ...DEFAULT_PLAN_LIMITS, budget: Infinity },
  'budget 5000': { ...DEFAULT_PLAN_LIMITS, budget: 5_000 },
  'budget 3000': { ...DEFAULT_PLAN_LIMITS, budget: 3_000 },
  'budget 2000': { ...DEFAULT_PLAN_LIMITS, budget: 2_000 },
  'budget 1000': { ...DEFAULT_PLAN_LIMITS, budget: 1_000 },
  'rerank x2': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 2 },
  'rerank x4': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 4 },
  'rerank x10': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 10 },
  'rerank x20': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 20 },
  'b 0': { ...DEFAULT_PLAN_LIMITS, lengthDamping: 0 },
  'rerank x3': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 3 },
  'budget 2000, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 2_000, rerankFactor: 2 },
  'budget 2000, rerank x3': { ...DEFAULT_PLAN_LIMITS, budget: 2_000, rerankFactor: 3 },
  'budget 1500, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 1_500, rerankFactor: 2 },
  'never planned': { ...DEFAULT_PLAN_LIMITS, rankAll: Infinity },
};

/** The set's words, each as often as the cards use it: a sampler of text on the same subjects. */
function vocabulary(): string[] {
  return CARDS.flatMap((c) => `${c.title} ${c.body}`.toLowerCase().match(/[a-z][a-z0-9-]{2,}/g) ?? []);
}

export async function runPlannerQuality(opts: { small?: boolean; distractors?: number; details?: boolean; log?: (line: string) => void } = {}): Promise<PlannerQualityReport> {
  const log = opts.log ?? console.log;
  const distractors = opts.distractors ?? (opts.small ? 1_500 : 20_000);
  // Paraphrases share no word with their card: keyword search finds nothing for them either way.
  const questions = QUERIES.filter((q) => q.style !== 'paraphrase');
  const brain = await embeddedBenchBrain();
  try {
    const ctx = await brain.context('homelab');
    for (const card of CARDS) await createTopic(ctx, { slug: card.slug, kind: card.kind, title: card.title, body: card.body });
    const words = vocabulary();
    const r = mulberry32(5);
    const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(r() * words.length)]!).join(' ');
    for (let start = 0; start < distractors; start += 1_000) {
      const n = Math.min(1_000, distractors - start);
      const slugs = Array.from({ length: n }, (_, i) => `noise/${start + i}`);
      const titles = Array.from({ length: n }, () => text(3 + Math.floor(r() * 4)));
      const bodies = Array.from({ length: n }, () => text(40 + Math.floor(r() * 80)));
      await brain.admin.query(`INSERT INTO homelab.topics (slug, kind, title, body) SELECT s, 'concept', t, b FROM unnest($1::text[], $2::text[], $3::text[]) AS u(s, t, b)`, [slugs, titles, bodies]);
    }
    await brain.admin.exec('ANALYZE homelab.topics');

    const rows: PlannerQualityRow[] = [];
    // Per question and variant: the rank of the first relevant card in the top 10 ('-' if none).
    const firstRelevant = new Map<string, string[]>(questions.map((q) => [q.query, []]));
    for (const [variant, limits] of Object.entries(VARIANTS)) {
      const ms: number[] = [];
      let recall = 0;
      let ndcg = 0;
      let planned = 0;
      for (const q of questions) {
        const started = performance.now();
        const res = await rankedSearch(ctx, { query: q.query, mode: 'keyword', limit: 10, includeEpisodes: false, subject: 'homelab' }, limits ? { keywordPlanLimits: limits } : {});
        ms.push(performance.now() - started);
        if (res.keywordPlan?.narrowed.has('homelab.topics')) planned++;
        const slugs = await slugsOf(brain.admin, res.keyword.map((h) => h.id));
        const at = slugs.findIndex((x) => q.relevant.includes(x));
        firstRelevant.get(q.query)!.push(at < 0 ? '-' : String(at + 1));
        recall += recallAt(5, slugs, q.relevant);
        ndcg += ndcgAt(10, slugs, q.relevant);
      }
      rows.push({ variant, recallAt5: recall / questions.length, ndcgAt10: ndcg / questions.length, p50: percentile(ms, 50), p95: percentile(ms, 95), planned });
    }
    log(`planner quality: ${CARDS.length} relevance cards among ${distractors} distractors of the same words, ${questions.length} keyword-style and natural-language questions`);
    for (const row of rows) {
      log(`  ${row.variant.padEnd(28)} recall@5 ${row.recallAt5.toFixed(3)}  nDCG@10 ${row.ndcgAt10.toFixed(3)}  p50 ${row.p50.toFixed(1)} ms  p95 ${row.p95.toFixed(1)} ms  (planned: ${row.planned}/${questions.length})`);
    }
    if (opts.details) {
      log(`  first relevant card's rank (${rows.map((x) => x.variant).join(' / ')}):`);
      for (const [query, ranks] of firstRelevant) log(`    ${ranks.map((x) => x.padStart(2)).join(' ')}  ${query}`);
    }
    return { distractors, questions: questions.length, rows };
  } finally {
    await brain.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { small: { type: 'boolean', default: false }, details: { type: 'boolean', default: false }, distractors: { type: 'string' } } });
  await runPlannerQuality({ small: values.small, details: values.details, ...(values.distractors ? { distractors: Number(values.distractors) } : {}) });
}
