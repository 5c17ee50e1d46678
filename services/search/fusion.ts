// Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): each list contributes
// weight / (k + rank) for every card it holds, ranks counted from 1.
//
// Why ranks and not scores: ts_rank_cd and cosine distance live on unrelated scales (a
// rank of 0.1 is a strong keyword match, a distance of 0.1 a near duplicate), and neither is
// calibrated across queries. Ranks need no calibration.
//
// k damps the head of each list: with k = 60 the first and tenth places differ by only ~13%,
// so a card both lists agree on (even at modest ranks) beats a card only one list puts first;
// that agreement is what hybrid search is for. The constant and the lists' weights are in
// ranking.ts, with the measurements that chose them.
import { RANKING } from './ranking.js';
import { cardKey, type CardRef } from './types.js';

export interface FusedCard<T extends CardRef> {
  ref: T;
  score: number;
  /** 1-based rank in each list that holds the card. */
  ranks: (number | undefined)[];
}

export function reciprocalRankFusion<T extends CardRef>(lists: readonly { hits: readonly T[]; weight?: number }[], k = RANKING.rrfK): FusedCard<T>[] {
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
