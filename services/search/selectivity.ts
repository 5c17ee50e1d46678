// Which of a question's words select the cards that get ranked.
//
// Any-word matching is right for questions, but ranking is the expensive part: ts_rank_cd
// reads each selected card's whole tsvector. At 100k cards a word held by 5% of them selects
// 5,000 rows, and a question usually has one or two such words, so the full OR ranked 10-30k
// rows (300 ms on a server, 750 ms in PGlite). Measured by the planner's own statistics
// (pg_stats.most_common_elems, which ANALYZE keeps for tsvector columns), the words are
// taken rarest first while the estimated rows fit a budget; the common words left out still
// count in the ranking (brain.search_query's `rank`), and two of them together can still
// select a card (pairs). This is IDF by another name: a card that shares only the commonest
// word of a question rarely answers it.
//
// The cards the chosen words select are then scored cheaply and only the best ranked with
// ts_rank_cd (keyword.ts). Without statistics (a table never analysed) or under RANK_ALL_ROWS
// estimated matches nothing changes, so a small brain behaves exactly as plain any-word matching. A planned query that finds nothing
// anywhere is run again unplanned (keyword.ts), so a question is never answered with nothing
// while some card shares a word with it.

/** What pg_stats says about one tsvector column (column-stats.ts reads and caches it). */
export interface ColumnStats {
  /** The table's estimated row count (pg_class.reltuples); null when unknown. */
  rows: number | null;
  /** Share of rows holding each of the column's most common lexemes (about 1,000 of them). */
  frequencies: ReadonlyMap<string, number>;
  /** The lowest frequency that list keeps: every lexeme missing from it is rarer. Null without statistics. */
  minFrequency: number | null;
  /** The column's average stored size in bytes (pg_stats.avg_width); null without statistics. */
  averageSize: number | null;
}

/** One way a card can be selected: holding every lexeme of the term. */
export interface MatchTerm {
  lexemes: string[];
  /** Inverse document frequency of the term: rarer terms say more about a card. */
  weight: number;
}

/**
 * The rows to rank: cards holding any term, scored by the summed weight of the terms they
 * hold, and only the best of them ranked by ts_rank_cd (keyword.ts).
 */
export interface MatchPlan {
  terms: MatchTerm[];
  /** The column's average stored size, against which a card's size normalises its score (BM25's b). */
  averageSize: number;
  /** Lexemes that select nothing by themselves (they still rank). */
  dropped: string[];
  /** Estimated rows the terms select (before other filters). */
  estimatedRows: number;
}

/**
 * Estimated rows under which a table's matches are all ranked with ts_rank_cd as they are
 * (it reads each card's whole tsvector: 15-20 microseconds a row on a server, several times
 * that in PGlite). Above it the search is planned.
 */
export const RANK_ALL_ROWS = 400;

/**
 * Estimated rows a planned search may select in one table. Selecting costs about two
 * microseconds a row on a server (an index lookup and a heap visit, no tsvector read), five
 * to ten in PGlite; only the best-scored RERANK_FACTOR x depth (100 for a normal search) are
 * then ranked (keyword.ts). Chosen with RERANK_FACTOR on bench/scale/keyword-plans.ts (the
 * scale bench's 7,500-page brain, 160 held-out queries with words) and
 * bench/search/planner-quality.ts (the labelled relevance set among 20,000 distractors),
 * 2026-12-03; before, 3,000 and x10:
 *   - keyword ranking p95 at 7,500 pages 27-30 -> 18 ms; the card a query was drawn from first
 *     in 73.9% of queries and in the top 10 in 77.7% (72.6% and 77.7% before; the exact ranking,
 *     every match ranked by ts_rank_cd: 72.6% and 77.1%);
 *   - planner quality recall@5 0.458 and nDCG@10 0.402 (0.417 and 0.345 before; never planned
 *     0.375 and 0.362);
 *   - agreement with the exact ranking's top 10 fell from 85.6% to 71.3%: it is not relevance;
 *   - the question set (bench/search/questions.ts, 2,999 cards) is too small to be planned: the
 *     same 0.805 / 0.871 hybrid recall@5 / @10 under every limit.
 * 1,500 (with x2) was faster still (13 ms p95) but gave back the planner-quality gain (0.417 /
 * 0.375); earlier (2026-12-02, x10) 5,000 -> 3,000 took the p95 from 46-50 to 28-40 ms.
 */
export const MATCH_ROW_BUDGET = 2_000;

/** Pairs of common words tried at most (a seven-word question of common words has 21). */
const MAX_PAIRS = 10;

export interface PlanLimits {
  /** Estimated matches under which a table is not planned (Infinity: never plan). */
  rankAll: number;
  /** Estimated rows a plan may select. */
  budget: number;
  /**
   * How many of a planned table's selected cards go on to ts_rank_cd, as a multiple of the
   * rows asked for (at least 50): the best by summed term weight (the cheap first stage).
   */
  rerankFactor: number;
  /**
   * At most this many single words select (the rarest); the others only rank, as words over
   * the budget do. Unset: no limit. Search before add sets it: a whole card as the query has
   * dozens of words, and each selecting word is an index lookup and a visit of its cards.
   */
  maxTerms?: number;
  /** BM25's b for the cheap first stage (keyword.ts): how much a card's stored size damps its score; default BM25_B. */
  lengthDamping?: number;
}

/** See MATCH_ROW_BUDGET for how it was chosen (10 before 2026-12-03). */
export const RERANK_FACTOR = 2;

export const DEFAULT_PLAN_LIMITS: PlanLimits = Object.freeze({ rankAll: RANK_ALL_ROWS, budget: MATCH_ROW_BUDGET, rerankFactor: RERANK_FACTOR });

/**
 * The plan for `lexemes` on a column with `stats`, or undefined when every lexeme should
 * select and be ranked as it is (no statistics, or few enough matches to rank them all).
 */
export function planMatch(lexemes: readonly string[], stats: ColumnStats, limits: PlanLimits = DEFAULT_PLAN_LIMITS): MatchPlan | undefined {
  const { rows, minFrequency } = stats;
  const { budget } = limits;
  if (lexemes.length === 0 || rows === null || !(rows > 0) || minFrequency === null) return undefined;
  // Postgres's own estimate for an element missing from the list (tsmatchsel): half the lowest listed frequency.
  const frequency = (l: string) => Math.min(1, stats.frequencies.get(l) ?? minFrequency / 2);
  const unique = [...new Set(lexemes)];
  if (unique.reduce((sum, l) => sum + rows * frequency(l), 0) <= limits.rankAll) return undefined;
  // BM25's inverse document frequency, from the same estimate.
  const idf = (share: number) => Math.log(1 + (1 - share + 0.5 / rows) / (share + 0.5 / rows));

  const byRarity = unique.sort((a, b) => frequency(a) - frequency(b) || (a < b ? -1 : a > b ? 1 : 0));
  const terms: MatchTerm[] = [];
  const dropped: string[] = [];
  let used = 0;
  const maxTerms = limits.maxTerms ?? Infinity;
  for (const l of byRarity) {
    const cost = rows * frequency(l);
    // A word missing from the most-common list is rarer than every word on it: always worth selecting by.
    if (terms.length < maxTerms && (!stats.frequencies.has(l) || used + cost <= budget)) {
      terms.push({ lexemes: [l], weight: idf(frequency(l)) });
      used += cost;
    } else {
      dropped.push(l);
    }
  }
  // Two common words together are far rarer than either (independence: the product); not
  // needed when the cap on selecting words was reached: the rarest words select already.
  const pairs: { lexemes: [string, string]; share: number }[] = [];
  for (let i = 0; terms.length < maxTerms && i < dropped.length; i++) {
    for (let j = i + 1; j < dropped.length; j++) pairs.push({ lexemes: [dropped[i]!, dropped[j]!], share: frequency(dropped[i]!) * frequency(dropped[j]!) });
  }
  pairs.sort((a, b) => a.share - b.share);
  let taken = 0;
  for (const p of pairs) {
    if (taken >= MAX_PAIRS || used + rows * p.share > budget) break;
    terms.push({ lexemes: p.lexemes, weight: idf(frequency(p.lexemes[0])) + idf(frequency(p.lexemes[1])) });
    used += rows * p.share;
    taken++;
  }
  const averageSize = stats.averageSize && stats.averageSize > 0 ? stats.averageSize : 1;
  if (terms.length > 0) return { terms, averageSize, dropped, estimatedRows: Math.round(used) };

  // Every word is common, even two at a time: require the rarest ones together, as few as fit.
  const allOf: string[] = [];
  let share = 1;
  for (const l of byRarity) {
    allOf.push(l);
    share *= frequency(l);
    if (rows * share <= budget) break;
  }
  return {
    terms: [{ lexemes: allOf, weight: allOf.reduce((w, l) => w + idf(frequency(l)), 0) }],
    averageSize,
    dropped: byRarity.filter((l) => !allOf.includes(l)),
    estimatedRows: Math.round(rows * share),
  };
}
