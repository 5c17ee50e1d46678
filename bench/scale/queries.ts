// The held-out query set: drawn from the corpus model (corpus.ts) with a seed of its own, so
// nothing in the product was tuned on it, in five shapes taken in turn:
//   name      a page's title, as someone asks for a person or a company;
//   rare      one or two words that occur a few times in the whole corpus (rareWords);
//   question  a natural-language question mixing common words, mid-frequency words and a rare one;
//   timeline  three to six consecutive words of a timeline line;
//   nonsense  words that are in no page (the "nothing relevant" path).
// No query repeats, so the first pass after a server starts hits cold paths (issue 17's
// complaint: 200 queries of one shape on warmed tables say little about held-out questions).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 } from '../prng.js';
import { generateCorpus, type CorpusModel } from './corpus.js';
import { nonsenseWord } from './vocabulary.js';

export const SHAPES = ['name', 'rare', 'question', 'timeline', 'nonsense'] as const;
export type QueryShape = (typeof SHAPES)[number];

/**
 * What a query was drawn from, so a bench can tell whether an answer found it: the page whose
 * title it is (name), the words that make it specific (rare: every word; question: its rare
 * word), or the run of words of a timeline line (timeline). Nonsense has none.
 */
export type QueryTarget = { title: string } | { words: string[] } | { phrase: string };

export interface Query {
  shape: QueryShape;
  text: string;
  target?: QueryTarget;
}

const QUESTIONS: readonly ((a: string, b: string, r: string) => string)[] = [
  (a, b, r) => `what did we decide about the ${a} ${b} and ${r}`,
  (a, b, r) => `who was working on ${a} with ${r} last year`,
  (a, b, r) => `when did the ${a} ${r} happen and what was the ${b}`,
  (a, b, r) => `why is ${r} a risk for the ${a} plan`,
  (a, b, r) => `how does ${a} relate to ${b} ${r}`,
  (a, b, r) => `is there any update on ${r} ${a}`,
];

/** Below this many words drawn 1-4 times, the rare words are the RARE_FALLBACK least drawn instead. */
const RARE_FLOOR = 100;
const RARE_FALLBACK = 1_000;

/**
 * The words a rare query draws from: those drawn 1-4 times in the whole corpus (24,867 at 7,500
 * pages, 361 at 30,000). At 100,000 pages no word is that rare (the least drawn appears 14
 * times), so there the thousand least drawn words stand in (14-26 times each); the smaller
 * sizes keep their queries unchanged.
 */
export function rareWords(model: CorpusModel): string[] {
  const { words } = model.vocabulary;
  const fewTimes = words.filter((_, r) => model.counts[r]! >= 1 && model.counts[r]! <= 4);
  if (fewTimes.length >= RARE_FLOOR) return fewTimes;
  const drawn = words.map((_, r) => r).filter((r) => model.counts[r]! > 0);
  drawn.sort((a, b) => model.counts[a]! - model.counts[b]! || a - b);
  return drawn.slice(0, RARE_FALLBACK).map((r) => words[r]!);
}

export function heldOutQueries(model: CorpusModel, count = 200, seed = 17): Query[] {
  const rnd = mulberry32(seed * 7_919 + 3);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const words = model.vocabulary.words;
  // Rare: see rareWords. Mid: ranks 300-8,000 (drawn, so present).
  const rare = rareWords(model);
  const mid = words.slice(300, 8_000).filter((_, i) => model.counts[300 + i]! > 0);
  // Each shape draws in the same order as when it returned text only: the queries do not change.
  const make: Record<QueryShape, () => Omit<Query, 'shape'>> = {
    name: () => {
      const title = pick(model.pages).title;
      return { text: title, target: { title } };
    },
    rare: () => {
      const words = Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => pick(rare));
      return { text: words.join(' '), target: { words } };
    },
    question: () => {
      const ask = pick(QUESTIONS);
      const a = pick(mid);
      const b = pick(mid);
      const r = pick(rare);
      return { text: ask(a, b, r), target: { words: [r] } };
    },
    timeline: () => {
      const ws = pick(model.timelineTexts).replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/[.]/g, '').split(/\s+/).filter(Boolean);
      const n = Math.min(ws.length, 3 + Math.floor(rnd() * 4));
      const at = Math.floor(rnd() * (ws.length - n + 1));
      const text = ws.slice(at, at + n).join(' ').toLowerCase();
      return { text, target: { phrase: text } };
    },
    nonsense: () => ({ text: Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => nonsenseWord(rnd)).join(' ') }),
  };
  const seen = new Set<string>();
  const out: Query[] = [];
  for (let i = 0; out.length < count; i++) {
    const shape = SHAPES[out.length % SHAPES.length]!;
    const drawn = make[shape]();
    if (seen.has(drawn.text)) {
      if (i > count * 100) throw new Error('the corpus is too small for that many distinct queries');
      continue;
    }
    seen.add(drawn.text);
    out.push({ shape, ...drawn });
  }
  return out;
}

/**
 * The held-out queries a scale-bench run asked at this size and seed (size-run.ts: seed + 16),
 * for the benches that measure a brain the scale bench kept: the corpus is generated again
 * (into a scratch directory, removed after) for its model.
 */
export function keptBrainQueries(pages: number, seed: number, count: number): Query[] {
  const scratch = mkdtempSync(join(tmpdir(), 'brain-scale-queries-'));
  try {
    return heldOutQueries(generateCorpus(scratch, { pages, seed }).model, count, seed + 16);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
