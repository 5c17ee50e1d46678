// What keyword search's planning (services/search/selectivity.ts) costs and buys on a brain the
// scale bench kept, with the scale bench's held-out queries: each variant of the plan limits
// against the exact ranking (every matching card ranked by ts_rank_cd, never planned), as the
// share of the exact top 10 it keeps and how often its first card is the exact one, and its
// time (each query run once to warm, then timed). The thresholds in selectivity.ts change only
// with these numbers (docs/performance.md, "Keyword planning at 7,500 pages").
// Agreement with the exact ranking is not relevance (on the labelled planner-quality set the
// exact ranking does worse than the planned one), so each variant is also scored on what the
// queries were drawn from (queries.ts, QueryTarget): the page a name query names, a card holding
// a timeline query's words in order, a card holding the rare word of a question or a rare query,
// at the first place and in the top 10.
//
//   npm run build && node dist/bench/scale/keyword-plans.js --brain DIR/size-7500 [--pages 7500] [--seed 1] [--queries 200]
import { parseArgs } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { openSubject } from '../../db/open.js';
import { createContext } from '../../services/knowledge/context.js';
import { readableSubjects } from '../../services/knowledge/topics.js';
import { keywordSearch, type KeywordHit } from '../../services/search/keyword.js';
import { RANKING } from '../../services/search/ranking.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../services/search/selectivity.js';
import { parseTextQuery } from '../../services/search/text-query.js';
import type { SearchFilters } from '../../services/search/types.js';
import { percentile } from '../search/metrics.js';
import { SUBJECT } from './brain-home.js';
import { fail, KEPT_BRAIN_OPTIONS, keptBrainArgs, keptBrainEnv, orExit } from './kept-brain.js';
import { keptBrainQueries, type Query, type QueryTarget } from './queries.js';
import type { Db } from '../../services/knowledge/context.js';

const VARIANTS: Record<string, PlanLimits> = {
  exact: { ...DEFAULT_PLAN_LIMITS, rankAll: Infinity },
  'as shipped': DEFAULT_PLAN_LIMITS,
  'rerank x4': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 4 },
  'rerank x2': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 2 },
  'b 0': { ...DEFAULT_PLAN_LIMITS, lengthDamping: 0 },
  'rerank x3': { ...DEFAULT_PLAN_LIMITS, rerankFactor: 3 },
  'budget 2000, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 2_000, rerankFactor: 2 },
  'budget 2000, rerank x3': { ...DEFAULT_PLAN_LIMITS, budget: 2_000, rerankFactor: 3 },
  'budget 1500, rerank x2': { ...DEFAULT_PLAN_LIMITS, budget: 1_500, rerankFactor: 2 },
};

const { values } = parseArgs({
  options: {
    ...KEPT_BRAIN_OPTIONS,
    variants: { type: 'string' },
  },
});
const { dir, pages, seed, count } = orExit(() => keptBrainArgs(values));
const queries = keptBrainQueries(pages, seed, count).filter((q) => q.shape !== 'nonsense');
const chosen = values.variants ? ['exact', ...values.variants.split(',').filter((v) => v !== 'exact')] : Object.keys(VARIANTS);
for (const v of chosen) if (!VARIANTS[v]) fail(`no variant "${v}": choose among ${Object.keys(VARIANTS).join(', ')}`);

const filters: SearchFilters = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: true, includeTopics: true };
const key = (h: KeywordHit) => `${h.entity}:${h.id}`;

/** The cards ('topic:7', 'episode:9') a target names, in the subject's tables. */
async function targetCards(db: Db, target: QueryTarget): Promise<Set<string>> {
  const cfg = sql`brain.text_search_config()`;
  // A name is its page's title; a phrase or words are matched in either table's search column.
  let topics: RawBuilder<unknown>;
  let episodes: RawBuilder<unknown>;
  if ('title' in target) {
    topics = sql`c.title = ${target.title}`;
    episodes = sql`false`;
  } else {
    const query = 'phrase' in target ? sql`phraseto_tsquery(${cfg}, ${target.phrase})` : sql`websearch_to_tsquery(${cfg}, ${target.words.join(' or ')})`;
    topics = episodes = sql`c.search @@ ${query}`;
  }
  const rows = await sql<{ card: string }>`
    SELECT 'topic:' || c.id AS card FROM ${sql.table(`${SUBJECT}.topics`)} c WHERE c.archived_at IS NULL AND ${topics}
    UNION ALL SELECT 'episode:' || c.id FROM ${sql.table(`${SUBJECT}.episodes`)} c WHERE ${episodes}`.execute(db);
  return new Set(rows.rows.map((r) => r.card));
}

const rt = loadRuntimeConfig(keptBrainEnv(dir));
const conn = await openSubject(rt, SUBJECT);
try {
  const ctx = await createContext(conn.subject, conn.handle.db);
  const subjects = readableSubjects(ctx);
  const run = (q: Query, limits: PlanLimits) => keywordSearch(ctx.db, subjects, parseTextQuery(q.text), filters, RANKING.fusionDepth, { limits, normalisation: RANKING.rankNormalisation });
  const exactTop = new Map<string, string[]>();
  const targets = new Map<string, Set<string>>();
  for (const q of queries) if (q.target) targets.set(q.text, await targetCards(ctx.db, q.target));
  const findable = [...targets.values()].filter((t) => t.size > 0).length;
  console.log(`\nKeyword planning on ${dir}: ${queries.length} held-out queries with words (nonsense left out), ${findable} with a target card in the brain, fusion depth ${RANKING.fusionDepth}\n`);
  console.log('| variant | top 10 kept (of the exact) | same first card | target first · in top 10 | p50 / p95 ms | p95 by shape: name · rare · question · timeline |\n| --- | --- | --- | --- | --- | --- |');
  for (const variant of chosen) {
    const limits = VARIANTS[variant]!;
    const ms: number[] = [];
    const byShape = new Map<string, number[]>();
    let kept = 0;
    let possible = 0;
    let sameFirst = 0;
    let answered = 0;
    let targetFirst = 0;
    let targetTop = 0;
    for (const q of queries) {
      await run(q, limits);
      const began = performance.now();
      const { hits } = await run(q, limits);
      const took = performance.now() - began;
      ms.push(took);
      byShape.set(q.shape, (byShape.get(q.shape) ?? []).concat(took));
      const top = hits.slice(0, 10).map(key);
      const target = targets.get(q.text);
      if (target && target.size > 0) {
        if (target.has(top[0] ?? '')) targetFirst++;
        if (top.some((k) => target.has(k))) targetTop++;
      }
      if (variant === 'exact') {
        exactTop.set(q.text, top);
        continue;
      }
      const exact = exactTop.get(q.text)!;
      possible += exact.length;
      kept += top.filter((k) => exact.includes(k)).length;
      if (exact.length > 0) {
        answered++;
        if (top[0] === exact[0]) sameFirst++;
      }
    }
    const share = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);
    const shapes = ['name', 'rare', 'question', 'timeline'].map((s) => percentile(byShape.get(s) ?? [], 95).toFixed(1)).join(' · ');
    console.log(`| ${variant} | ${variant === 'exact' ? '100%' : share(kept, possible)} | ${variant === 'exact' ? '100%' : share(sameFirst, answered)} | ${share(targetFirst, findable)} · ${share(targetTop, findable)} | ${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} | ${shapes} |`);
  }
} finally {
  await conn.close();
}
