// The words of the scale corpus: real common English words at the top ranks, then tens of
// thousands of synthetic pseudo-words, drawn with Zipf's law (probability ∝ 1 / rank^s). With
// s ≈ 1.07 the common words are very common and the tail words occur a handful of times in the
// whole corpus, as in real text, so a rare word in a query really selects a few pages and a
// common one selects most of them (a tiny vocabulary makes every page look alike).
//
// Pseudo-words never contain "q" or "y", so a query made of "qy…" words is in no page.

/** Common English words, roughly by frequency (they take ranks 1..n). */
export const COMMON_WORDS = (
  'the of and to a in is that for it was on with as be at by this have from or had not but are ' +
  'we they which one you were all there their has been if more when will would who so no out up ' +
  'about into than them can only other new some could time these two may first then do any like my ' +
  'now over such our man me even most made after also did many before must through back years where ' +
  'much your way well down should because each just those people how too little state good very make ' +
  'world still own see men work long get here between both life being under never day same another know ' +
  'while last might us great old year off come since against go came right used take three team plan ' +
  'meeting customer product revenue board launch pricing hiring growth investor round deal contract ' +
  'market launch release budget quarter partner support client review design data model service ' +
  'project report decision follow question issue problem update risk cost price sales users'
).split(' ').filter((w, i, all) => all.indexOf(w) === i);

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'cl', 'dr', 'fl', 'gr', 'kr', 'pl', 'pr', 'sh', 'st', 'th', 'tr', 'sk', 'sn', 'vr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'ei', 'au'];
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'm', 'x', 'nd', 'rt', 'sk', 'lt', 'mp'];

/** A pseudo-word of `syllables` syllables (no q, no y). */
export function pseudoWord(rnd: () => number, syllables: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  let w = '';
  for (let i = 0; i < syllables; i++) w += pick(ONSETS) + pick(VOWELS) + (i === syllables - 1 || rnd() < 0.3 ? pick(CODAS) : '');
  return w;
}

/** A word that is in no page: "qy" never occurs in the vocabulary or the names. */
export function nonsenseWord(rnd: () => number): string {
  return `qy${pseudoWord(rnd, 1 + Math.floor(rnd() * 2))}`;
}

export class ZipfVocabulary {
  /** Words by rank (index 0 = rank 1). */
  readonly words: string[];
  private readonly cdf: Float64Array;

  constructor(rnd: () => number, synthetic: number, readonly exponent = 1.07) {
    const seen = new Set(COMMON_WORDS);
    const words = [...COMMON_WORDS];
    while (words.length < COMMON_WORDS.length + synthetic) {
      const w = pseudoWord(rnd, 2 + Math.floor(rnd() * 2));
      if (w.length < 4 || seen.has(w)) continue;
      seen.add(w);
      words.push(w);
    }
    this.words = words;
    this.cdf = new Float64Array(words.length);
    let sum = 0;
    for (let r = 0; r < words.length; r++) this.cdf[r] = sum += 1 / (r + 1) ** exponent;
    for (let r = 0; r < words.length; r++) this.cdf[r]! /= sum;
  }

  /** A rank (0-based) drawn with Zipf's law: binary search of the cumulative distribution. */
  rank(rnd: () => number): number {
    const u = rnd();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A rank drawn uniformly from [from, to): words of a chosen band of frequency. */
  band(rnd: () => number, from: number, to: number): number {
    const hi = Math.min(to, this.words.length);
    return Math.min(hi - 1, from + Math.floor(rnd() * (hi - from)));
  }
}
