// How search orders what it finds: the constants of keyword ranking, fusion and the boosts, in
// one frozen object so the benchmarks can try other values through SearchDeps.ranking without
// a second code path. Every value here was chosen on bench/search/questions.ts (the labelled
// question set in bench/questions/); docs/retrieval.md has the sweeps and the figures.
// Measured too and not taken: episode chunks without their title (an episode's title names the
// speaker; hybrid fell from 0.754 / 0.837 to 0.725 / 0.804 with rrfK 60).

export interface Ranking {
  /**
   * ts_rank_cd's normalisation flags. 0 (none) ranks by cover density alone; 1 divides by
   * 1 + log(length), which pushed short conversational turns below long cards that mention
   * every word once.
   */
  readonly rankNormalisation: number;
  /** The keyword list's weight in reciprocal rank fusion; the vector list's is 1. */
  readonly keywordWeight: number;
  /** The RRF constant (fusion.ts explains why ranks and not scores). */
  readonly rrfK: number;
  /** How many candidates each list brings to fusion, whatever the page size: agreement below the page still counts. */
  readonly fusionDepth: number;
  /**
   * Nearest chunks the vector side reads per card it brings (a card has several chunks, and its
   * best one counts): the HNSW search's candidate list (ef_search) is fusionDepth x this, and its
   * cost grows with it.
   */
  readonly vectorChunksPerCard: number;
  /**
   * Episodes: a fused score is multiplied by 1 + recencyWeight * 2^(-age / recencyHalfLifeDays),
   * the age counted back from the newest episode among the candidates (not from today: a brain
   * of old notes is not all stale).
   */
  readonly recencyWeight: number;
  readonly recencyHalfLifeDays: number;
  /** A question naming a kind ("which decision...", "the meeting with...") multiplies that kind's scores by 1 + kindBoost. */
  readonly kindBoost: number;
}

/**
 * bench/search/questions.ts, 220 answerable questions over 2,999 cards (2026-11-30), hybrid
 * recall@5 / recall@10: the ranking before it 0.628 / 0.697; these values 0.805 / 0.871.
 *   - rankNormalisation 0: 0.787 / 0.877 against 0.730 / 0.818 with 1 (long cards that name
 *     every word once no longer beat the short turn that answers);
 *   - keywordWeight 1 (0.8: 0.737 / 0.863); rrfK 10 (60: 0.765 / 0.869), with the lists fused
 *     50 deep whatever the limit (the joint grid's best cells are within a question of this one);
 *   - recencyWeight 0.05: the set's "most recent" questions are answered at every weight from
 *     0 to 0.4, and 0.4 costs 1.3 points at 5; kept small, as a tie-breaker between like episodes;
 *   - kindBoost 0.2: the questions that name a kind go from 0.765 to 0.794 at 5, the others do not move.
 *   - vectorChunksPerCard 1.5 (2026-12-02; 2 before): 0.801 / 0.871 against 0.805 / 0.871 at 2 and
 *     3 (one question of 220 at 5), 0.792 / 0.871 at 1; the vector side's HNSW search reads 75
 *     chunks instead of 100, which at 7,500 GBrain pages (89k chunks, 768-d) took it from
 *     13.5-15.7 ms to about 10 ms of a hybrid search.
 */
export const RANKING: Ranking = Object.freeze({
  rankNormalisation: 0,
  keywordWeight: 1,
  rrfK: 10,
  fusionDepth: 50,
  vectorChunksPerCard: 1.5,
  recencyWeight: 0.05,
  recencyHalfLifeDays: 90,
  kindBoost: 0.2,
});

export function rankingWith(overrides: Partial<Ranking> | undefined): Ranking {
  return overrides ? Object.freeze({ ...RANKING, ...overrides }) : RANKING;
}
