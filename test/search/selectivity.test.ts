// The keyword planner on its own (no database): when it leaves a table alone, which words
// select, which only rank, and how the terms are weighted.
import { describe, expect, it } from 'vitest';
import { planMatch, type ColumnStats } from '../../services/search/selectivity.js';

const stats = (rows: number | null, frequencies: Record<string, number>, minFrequency: number | null = 0.01): ColumnStats => ({
  averageSize: 1000,
  rows,
  minFrequency,
  frequencies: new Map(Object.entries(frequencies)),
});
const limits = { rankAll: 400, budget: 5_000, rerankFactor: 10 };

describe('planMatch', () => {
  it('leaves a table alone without statistics, without words, or when every match can be ranked', () => {
    expect(planMatch(['backup'], stats(null, {}, null), limits)).toBeUndefined();
    expect(planMatch(['backup'], stats(100_000, {}, null), limits)).toBeUndefined(); // never analysed
    expect(planMatch([], stats(100_000, { backup: 0.2 }), limits)).toBeUndefined();
    // 64 cards: at most 64 rows per word, 3 words, under 400: plain any-word ranking.
    expect(planMatch(['backup', 'nas', 'restore'], stats(64, { backup: 0.5, nas: 0.3 }), limits)).toBeUndefined();
  });

  it('keeps rare words as selectors and drops the common ones, which then only rank', () => {
    const plan = planMatch(['backup', 'zigbee', 'restore', 'server'], stats(100_000, { backup: 0.2, server: 0.3, restore: 0.03 }), limits)!;
    // zigbee is not among the most common lexemes: rarer than all of them, always kept.
    // backup and server together would be 6,000 more rows: over the budget, so not even as a pair.
    expect(plan.terms.map((t) => t.lexemes)).toEqual([['zigbee'], ['restore']]);
    expect(plan.dropped).toEqual(['backup', 'server']);
    // 500 (zigbee: half the lowest listed frequency, as Postgres estimates it) + 3,000 (restore).
    expect(plan.estimatedRows).toBe(3_500);
  });

  it('adds pairs of dropped words only while they fit the budget, rarest pair first', () => {
    const plan = planMatch(['alpha', 'beta', 'gamma', 'rare'], stats(100_000, { alpha: 0.1, beta: 0.1, gamma: 0.3 }), limits)!;
    // rare: 500 rows; alpha+beta: 1,000; alpha+gamma and beta+gamma: 3,000 each (only one more fits).
    expect(plan.terms.map((t) => t.lexemes.join('+'))).toEqual(['rare', 'alpha+beta', 'alpha+gamma']);
    expect(plan.estimatedRows).toBe(4_500);
    expect(plan.estimatedRows).toBeLessThanOrEqual(limits.budget);
  });

  it('weighs rarer terms higher, and a pair as the sum of its words', () => {
    const plan = planMatch(['common', 'rare', 'mid', 'other'], stats(100_000, { common: 0.1, mid: 0.01, other: 0.12 }, 0.004), limits)!;
    const weight = (l: string) => plan.terms.find((t) => t.lexemes.join('+') === l)?.weight ?? NaN;
    expect(weight('rare')).toBeGreaterThan(weight('mid'));
    expect(plan.dropped).toEqual(['common', 'other']);
    const idf = (share: number) => Math.log(1 + (1 - share + 0.5 / 100_000) / (share + 0.5 / 100_000));
    expect(weight('mid')).toBeCloseTo(idf(0.01));
    expect(weight('common+other')).toBeCloseTo(idf(0.1) + idf(0.12)); // 1,200 rows together: it fits
  });

  it('requires the rarest common words together when every word is common even in pairs', () => {
    const plan = planMatch(['a', 'b', 'c'], stats(1_000_000, { a: 0.4, b: 0.5, c: 0.6 }), limits)!;
    // a+b alone would be 200,000 rows: all three are needed (120,000 is the best there is).
    expect(plan.terms).toHaveLength(1);
    expect(plan.terms[0]!.lexemes).toEqual(['a', 'b', 'c']);
    expect(plan.dropped).toEqual([]);
    const two = planMatch(['a', 'b', 'c'], stats(20_000, { a: 0.4, b: 0.5, c: 0.6 }), limits)!;
    // Each word alone is over the budget, a+b (4,000 rows) fits, a+c (4,800) no longer does.
    expect(two.terms.map((t) => t.lexemes)).toEqual([['a', 'b']]);
    expect(two.dropped).toEqual(['a', 'b', 'c']);
  });

  it('counts a repeated word once and is deterministic', () => {
    const s = stats(100_000, { x: 0.2, y: 0.2 });
    const a = planMatch(['y', 'x', 'x', 'q'], s, limits);
    const b = planMatch(['q', 'x', 'y'], s, limits);
    expect(a).toEqual(b);
    expect(a!.terms[0]!.lexemes).toEqual(['q']);
  });
});
