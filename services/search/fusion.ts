// Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): each list contributes
// weight / (k + rank) for every card it holds, ranks counted from 1.
//
// Why ranks and not scores: ts_rank_cd and cosine distance live on unrelated scales (a
// rank of 0.1 is a strong keyword match, a distance of 0.1 a near duplicate), and neither is
// calibrated across queries. Ranks need no calibration.
//
// Why k = 60: k damps the head of each list. With k = 60 the first and tenth places differ
// by only ~13%, so a card both lists agree on (even at modest ranks) beats a card only one
// list puts first; that agreement is what hybrid search is for. 60 is the value from the
// paper, and on bench/search/relevance the metrics are flat from 20 to 200 (k = 5 scores
// higher but makes fusion first-place-wins; see docs/retrieval.md), so we kept it rather
// than tune it to 35 questions.
import { cardKey, type CardRef } from './types.js';

export const RRF_K = 60;

/**
 * The keyword list's weight (the vector list's is 1). Below 1 it mostly decides ties: when the
 * two lists put different cards first, the one found by meaning wins. On bench/search/relevance
 * nDCG@10 is 0.868 at 1 (below semantic alone), 0.889 anywhere in 0.5-0.9, and higher still at
 * 0.3, which we did not take: that is nearly semantic-only, and exact identifiers (a host name,
 * an error code) are where keyword search is the one that is right.
 */
export const KEYWORD_WEIGHT = 0.8;

export interface FusedCard<T extends CardRef> {
  ref: T;
  score: number;
  /** 1-based rank in each list that holds the card. */
  ranks: (number | undefined)[];
}

export function reciprocalRankFusion<T extends CardRef>(lists: readonly { hits: readonly T[]; weight?: number }[], k = RRF_K): FusedCard<T>[] {
  const fused = new Map<string, FusedCard<T>>();
  lists.forEach((list, li) => {
    const weight = list.weight ?? 1;
    list.hits.forEach((hit, i) => {
      const key = cardKey(hit);
      let entry = fused.get(key);
      if (!entry) {
        entry = { ref: hit, score: 0, ranks: lists.map(() => undefined) };
        fused.set(key, entry);
      }
      entry.ranks[li] = i + 1;
      entry.score += weight / (k + i + 1);
    });
  });
  // Ties (same score) keep the order of first appearance: keyword list first.
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
