// The held-out query set: drawn from the corpus model (corpus.ts) with a seed of its own, so
// nothing in the product was tuned on it, in five shapes taken in turn:
//   name      a page's title, as someone asks for a person or a company;
//   rare      one or two words that occur a few times in the whole corpus;
//   question  a natural-language question mixing common words, mid-frequency words and a rare one;
//   timeline  three to six consecutive words of a timeline line;
//   nonsense  words that are in no page (the "nothing relevant" path).
// No query repeats, so the first pass after a server starts hits cold paths (issue 17's
// complaint: 200 queries of one shape on warmed tables say little about held-out questions).
import { mulberry32 } from '../prng.js';
import type { CorpusModel } from './corpus.js';
import { nonsenseWord } from './vocabulary.js';

export const SHAPES = ['name', 'rare', 'question', 'timeline', 'nonsense'] as const;
export type QueryShape = (typeof SHAPES)[number];

export interface Query {
  shape: QueryShape;
  text: string;
}

const QUESTIONS: readonly ((a: string, b: string, r: string) => string)[] = [
  (a, b, r) => `what did we decide about the ${a} ${b} and ${r}`,
  (a, b, r) => `who was working on ${a} with ${r} last year`,
  (a, b, r) => `when did the ${a} ${r} happen and what was the ${b}`,
  (a, b, r) => `why is ${r} a risk for the ${a} plan`,
  (a, b, r) => `how does ${a} relate to ${b} ${r}`,
  (a, b, r) => `is there any update on ${r} ${a}`,
];

export function heldOutQueries(model: CorpusModel, count = 200, seed = 17): Query[] {
  const rnd = mulberry32(seed * 7_919 + 3);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const words = model.vocabulary.words;
  // Rare: drawn 1-4 times in the whole corpus. Mid: ranks 300-8,000 (drawn, so present).
  const rare = words.filter((_, r) => model.counts[r]! >= 1 && model.counts[r]! <= 4);
  const mid = words.slice(300, 8_000).filter((_, i) => model.counts[300 + i]! > 0);
  const make: Record<QueryShape, () => string> = {
    name: () => pick(model.pages).title,
    rare: () => Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => pick(rare)).join(' '),
    question: () => pick(QUESTIONS)(pick(mid), pick(mid), pick(rare)),
    timeline: () => {
      const ws = pick(model.timelineTexts).replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/[.]/g, '').split(/\s+/).filter(Boolean);
      const n = Math.min(ws.length, 3 + Math.floor(rnd() * 4));
      const at = Math.floor(rnd() * (ws.length - n + 1));
      return ws.slice(at, at + n).join(' ').toLowerCase();
    },
    nonsense: () => Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => nonsenseWord(rnd)).join(' '),
  };
  const seen = new Set<string>();
  const out: Query[] = [];
  for (let i = 0; out.length < count; i++) {
    const shape = SHAPES[out.length % SHAPES.length]!;
    const text = make[shape]();
    if (seen.has(text)) {
      if (i > count * 100) throw new Error('the corpus is too small for that many distinct queries');
      continue;
    }
    seen.add(text);
    out.push({ shape, text });
  }
  return out;
}
