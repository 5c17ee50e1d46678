// The scale bench's corpus (bench/scale/corpus.ts) keeps its promises on a small page count:
// the same seed gives the same bytes, pages have the GBrain layout the import reads, links and
// timeline lines per page are in the range issue 17's corpus had (6 and 8.5 per page), words
// follow Zipf's law, and the held-out queries are distinct, in five shapes, nonsense in no page,
// rare ones drawn from the least drawn words even where no word is rare (100,000 pages).
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../bench/scale/corpus.js';
import { heldOutQueries, rareWords, SHAPES } from '../../bench/scale/queries.js';
import { extractLinks } from '../../services/gbrain/links.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'scale-corpus-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function files(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(root, p) : [p.slice(root.length + 1)];
  });
}

function digest(root: string): string {
  const h = createHash('sha256');
  for (const f of files(root).sort()) h.update(f).update('\0').update(readFileSync(join(root, f)));
  return h.digest('hex');
}

describe('scale corpus', () => {
  const PAGES = 400;
  const a = tmp();
  const { stats, model } = generateCorpus(a, { pages: PAGES, seed: 7 });

  it('is deterministic: the same seed gives the same bytes, another seed other bytes', () => {
    const b = tmp();
    generateCorpus(b, { pages: PAGES, seed: 7 });
    expect(digest(b)).toBe(digest(a));
    const c = tmp();
    generateCorpus(c, { pages: PAGES, seed: 8 });
    expect(digest(c)).not.toBe(digest(a));
  });

  it('writes GBrain pages in type folders, with frontmatter, a title, sections and a timeline', () => {
    const pages = files(a).filter((f) => f.endsWith('.md') && f.includes('/'));
    expect(pages).toHaveLength(PAGES);
    expect(new Set(pages.map((p) => p.split('/')[0]))).toEqual(new Set(['people', 'companies', 'concepts', 'meetings', 'projects', 'sources', 'deals', 'media', 'civic', 'yc']));
    expect(files(a).filter((f) => f.includes('/.raw/') && f.endsWith('.json')).length).toBe(stats.sidecars);
    const page = readFileSync(join(a, `${model.pages[0]!.slug}.md`), 'utf8');
    expect(page).toMatch(/^---\ntitle: .+\ntype: \w+\ntags: \[.+\]\ncreated: \d{4}-\d\d-\d\d\nupdated: \d{4}-\d\d-\d\d\n/);
    expect(page).toContain(`\n# ${model.pages[0]!.title}\n`);
    expect(page).toMatch(/\n## State\n/);
    // Titles are distinct: no small name vocabulary making pages near-identical.
    expect(new Set(model.pages.map((p) => p.title)).size).toBeGreaterThan(PAGES * 0.98);
  });

  it('has about six links and eight or nine timeline lines per page, as the import reads them', () => {
    expect(stats.links / PAGES).toBeGreaterThan(5);
    expect(stats.links / PAGES).toBeLessThan(7);
    expect(stats.missingLinks / stats.links).toBeGreaterThan(0.02);
    expect(stats.missingLinks / stats.links).toBeLessThan(0.1);
    expect(stats.timelineLines / PAGES).toBeGreaterThan(7.5);
    expect(stats.timelineLines / PAGES).toBeLessThan(9.5);
    expect(stats.continuationLines).toBeGreaterThan(0);
    // Counted with the import's own parsers: every link the generator wrote is a wiki link it sees.
    let links = 0;
    let timeline = 0;
    for (const p of model.pages) {
      const text = readFileSync(join(a, `${p.slug}.md`), 'utf8');
      links += extractLinks(text, p.slug).length;
      timeline += (text.match(/^- \*\*\d{4}-\d\d-\d\d\*\* \| [^—\n]+ — /gm) ?? []).length;
    }
    expect(links).toBe(stats.links);
    expect(timeline).toBe(stats.timelineLines);
    // A few KB per page.
    expect(stats.bytes / PAGES).toBeGreaterThan(1_500);
    expect(stats.bytes / PAGES).toBeLessThan(6_000);
  });

  it('draws words with Zipf’s law: the top word far more frequent than the median one, most words rare', () => {
    const used = [...model.counts].filter((c) => c > 0).sort((x, y) => y - x);
    const median = used[Math.floor(used.length / 2)]!;
    expect(used[0]!).toBeGreaterThan(100 * median);
    // Rank × frequency roughly constant over the head (exponent about 1): rank 10 about a tenth of rank 1.
    const ratio = used[0]! / used[9]!;
    expect(ratio).toBeGreaterThan(6);
    expect(ratio).toBeLessThan(20);
    expect(used.filter((c) => c <= 2).length / used.length).toBeGreaterThan(0.3);
    expect(stats.vocabulary).toBeGreaterThan(50_000);
  });

  it('gives distinct held-out queries in five rotating shapes, the nonsense ones in no page', () => {
    const qs = heldOutQueries(model, 100, 3);
    expect(qs).toHaveLength(100);
    expect(new Set(qs.map((q) => q.text)).size).toBe(100);
    expect(qs.slice(0, 5).map((q) => q.shape)).toEqual([...SHAPES]);
    expect(heldOutQueries(model, 100, 3)).toEqual(qs);
    const all = files(a).map((f) => readFileSync(join(a, f), 'utf8').toLowerCase()).join('\n');
    for (const q of qs.filter((x) => x.shape === 'nonsense')) for (const w of q.text.split(' ')) expect(all).not.toContain(w);
    for (const q of qs.filter((x) => x.shape === 'timeline')) expect(q.text.split(' ').length).toBeGreaterThanOrEqual(3);
    for (const q of qs.filter((x) => x.shape === 'name')) expect(model.pages.some((p) => p.title === q.text)).toBe(true);
  });

  it('says what each query was drawn from, so a bench can tell whether an answer found it', () => {
    const qs = heldOutQueries(model, 100, 3);
    const of = (shape: string) => qs.filter((q) => q.shape === shape);
    expect(of('nonsense')).toHaveLength(20);
    expect(of('nonsense').filter((q) => q.target !== undefined)).toHaveLength(0);
    expect(of('name')).toHaveLength(20);
    for (const q of of('name')) expect(q.target).toEqual({ title: q.text });
    expect(of('timeline')).toHaveLength(20);
    for (const q of of('timeline')) expect(q.target).toEqual({ phrase: q.text });
    expect(of('rare')).toHaveLength(20);
    for (const q of of('rare')) expect(q.target).toEqual({ words: q.text.split(' ') });
    expect(of('question')).toHaveLength(20);
    for (const q of of('question')) {
      const words = (q.target as { words: string[] }).words;
      expect(words).toHaveLength(1);
      expect(q.text.split(' ')).toContain(words[0]);
    }
  });

  it('draws rare queries from words drawn 1-4 times, or, where none is that rare, from the least drawn', () => {
    const fewTimes = model.vocabulary.words.filter((_, r) => model.counts[r]! >= 1 && model.counts[r]! <= 4);
    expect(fewTimes.length).toBeGreaterThanOrEqual(100);
    expect(rareWords(model)).toEqual(fewTimes);
    // As at 100,000 pages: every word drawn 14 times or more (ranks drawn more the lower they are).
    const words = Array.from({ length: 3_000 }, (_, r) => `w${r}`);
    const counts = Uint32Array.from(words, (_, r) => 14 + Math.floor((3_000 - r) / 100));
    // The corpus's own model with this vocabulary's words and counts (its other parts inherited).
    const big: typeof model = { ...model, vocabulary: Object.assign(Object.create(model.vocabulary) as typeof model.vocabulary, { words }), counts };
    const rare = rareWords(big);
    expect(rare).toHaveLength(1_000);
    expect(rare.slice(0, 3)).toEqual(['w2901', 'w2902', 'w2903']);
    // Every word drawn 14-23 times (ranks 2,001-2,999), then the first of those drawn 24 times.
    expect(new Set(rare)).toEqual(new Set([...words.slice(2_001), 'w1901']));
    const qs = heldOutQueries(big, 100, 3);
    expect(new Set(qs.map((q) => q.text)).size).toBe(100);
    const rareQueries = qs.filter((q) => q.shape === 'rare');
    expect(rareQueries).toHaveLength(20);
    for (const q of rareQueries) for (const w of q.text.split(' ')) expect(rare).toContain(w);
  });
});
