// The scale bench's corpus: a GBrain markdown brain of N pages, deterministic (the same seed
// gives the same bytes). Pages live in type folders (people/, companies/, meetings/ ...), with
// YAML frontmatter, `# Title`, `##` sections of compiled truth, then `---` and a timeline of
// `- **YYYY-MM-DD** | source — text` lines (some with indented continuation lines). About six
// inline wiki links `[Title](../dir/slug.md)` per page (5% to pages that do not exist, half of
// them to a few hub pages), .raw/ JSON sidecars for 5% of pages, index.md, log.md, schema.md.
// Prose comes from a Zipf vocabulary (vocabulary.ts); names and titles are distinct.
//
// Per 7,500 pages: about 45k links, 64k timeline lines and 25 MB of markdown, the shape of
// the held-out GBrain corpus issue 17 was measured on.
//
//   node dist/bench/scale/corpus.js OUT_DIR PAGES [SEED]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_KIND_MAP } from '../../services/gbrain/kinds.js';
import { slugify } from '../../services/gbrain/memory-json.js';
import { mulberry32 } from '../prng.js';
import { pseudoWord, ZipfVocabulary } from './vocabulary.js';

export interface CorpusOptions {
  pages: number;
  seed?: number;
  /** Synthetic words after the common ones. Default 60,000. */
  synthetic?: number;
  /** Zipf exponent. Default 1.07. */
  exponent?: number;
}

export interface CorpusStats {
  pages: number;
  /** Every file written: pages, sidecars, index.md, log.md, schema.md. */
  files: number;
  bytes: number;
  byDir: Record<string, number>;
  links: number;
  missingLinks: number;
  linksPerPage: { min: number; max: number };
  timelineLines: number;
  continuationLines: number;
  pagesWithTimeline: number;
  sidecars: number;
  /** Words drawn from the vocabulary (names, dates and links not counted). */
  tokens: number;
  vocabulary: number;
  wordsUsed: number;
  topWord: { word: string; count: number };
  /** The count of the median word among those used at least once. */
  medianWordCount: number;
}

export interface CorpusPage {
  slug: string;
  dir: string;
  title: string;
}

/** What the held-out query set is drawn from (queries.ts). */
export interface CorpusModel {
  pages: CorpusPage[];
  vocabulary: ZipfVocabulary;
  /** How often each word (by rank) was drawn. */
  counts: Uint32Array;
  /** A sample of timeline lines' text, links reduced to their text. */
  timelineTexts: string[];
}

const DIRS: readonly (readonly [dir: string, weight: number])[] = [
  ['people', 30], ['companies', 15], ['concepts', 12], ['meetings', 12], ['projects', 7], ['sources', 8],
  ['deals', 5], ['media', 5], ['civic', 3], ['yc', 3],
];
const REAL_FIRST = ['Pedro', 'Ana', 'Zoë', 'José', 'Łukasz', 'Mei', 'Olu', 'Sven', 'Priya', 'Hiroshi', 'Amélie', 'Kwame', 'Ingrid', 'Raj', 'Sofía', 'Yuki', 'Dmitri', 'Fatima', 'Tomás', 'Aisha', 'Lars', 'Chidi', 'Elena', 'Kenji', 'Nadia', 'Omar', 'Wanjiru', 'Björn', 'Carmen', 'Anouk'];
const COMPANY_NOUNS = ['Labs', 'Robotics', 'Capital', 'Health', 'Systems', 'Energy', 'Bio', 'Networks', 'Foods', 'Analytics', 'Works', 'Studio', 'Cloud', 'Security', 'Logistics', 'Materials'];
const SOURCES = ['meeting', 'email', 'call', 'note', 'slack', 'article', 'linkedin', 'crustdata', '1:1', 'standup', 'board', 'import'];
const SECTIONS = ['Assessment', 'Background', 'Open Threads', 'Relationships', 'Notes', 'Key Facts', 'History', 'Risks'];
const BULLET_SECTIONS = new Set(['Open Threads', 'Key Facts', 'Risks']);
const TIMELINE_SAMPLE = 4_000;

/** Fisher-Yates with the corpus's PRNG. */
function shuffled<T>(xs: readonly T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const cap = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);
const yamlString = (s: string): string => (/^[\p{L}\p{N} ]+$/u.test(s) ? s : JSON.stringify(s));

export function generateCorpus(outDir: string, opts: CorpusOptions): { stats: CorpusStats; model: CorpusModel } {
  const seed = opts.seed ?? 1;
  const rnd = mulberry32(seed);
  // Sampling for the model (timeline texts) has its own stream, so it never changes the bytes.
  const sampler = mulberry32(seed ^ 0x5bd1e995);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number): boolean => rnd() < p;
  const day = (): number => int(Date.UTC(2015, 0, 1) / 86_400_000, Date.UTC(2026, 9, 31) / 86_400_000);
  const iso = (d: number): string => new Date(d * 86_400_000).toISOString().slice(0, 10);

  const vocab = new ZipfVocabulary(rnd, opts.synthetic ?? 60_000, opts.exponent ?? 1.07);
  const counts = new Uint32Array(vocab.words.length);
  let tokens = 0;
  const word = (): string => {
    const r = vocab.rank(rnd);
    counts[r]!++;
    tokens++;
    return vocab.words[r]!;
  };
  // Names: a pool of first names (real and made up) and a large pool of surnames, so people
  // are distinct; titles of other pages come from pseudo-words and mid-frequency words.
  const firstNames = [...REAL_FIRST, ...Array.from({ length: 1_500 }, () => cap(pseudoWord(rnd, 2)))];
  const lastNames = Array.from({ length: 8_000 }, () => cap(pseudoWord(rnd, 2 + int(0, 1))));
  const person = () => `${pick(firstNames)} ${pick(lastNames)}`;
  const company = () => `${cap(pseudoWord(rnd, 2))} ${pick(COMPANY_NOUNS)}`;
  const midWord = () => vocab.words[vocab.band(rnd, 300, 8_000)]!;
  const tags = Array.from({ length: 150 }, (_, i) => (i < 30 ? midWord() : pseudoWord(rnd, 2)));

  const titleFor = (dir: string): string => {
    switch (dir) {
      case 'people':
        return person();
      case 'companies':
        return company();
      case 'deals':
        return `${company()} ${pick(['Seed', 'Series A', 'Series B', 'Series C', 'Bridge'])}`;
      case 'meetings':
        return `${iso(day())} ${pick(['Board sync', 'Intro call', 'Pipeline review', 'Offsite', 'Weekly'])} with ${chance(0.5) ? person() : company()}`;
      case 'projects':
        return `Project ${cap(pseudoWord(rnd, 2))}`;
      case 'civic':
        return `${cap(pseudoWord(rnd, 2))} ${pick(['Council', 'Commission', 'Initiative', 'District'])}`;
      case 'yc':
        return `${cap(pseudoWord(rnd, 2))} (YC ${pick(['W', 'S'])}${int(10, 25)})`;
      case 'concepts':
        return `${cap(midWord())} ${midWord()}${chance(0.5) ? ` ${pick(['Theory', 'Pattern', 'Principle', 'Playbook', 'Framework'])}` : ''}`;
      default:
        return `${cap(midWord())} ${cap(midWord())} ${pick(['Report', 'Article', 'Podcast', 'Memo', 'Interview', 'Talk'])}`;
    }
  };

  // Plan every page first, so links can point at pages written later.
  const totalWeight = DIRS.reduce((s, [, w]) => s + w, 0);
  const taken = new Set<string>();
  const pages: CorpusPage[] = [];
  for (let i = 0; i < opts.pages; i++) {
    let r = rnd() * totalWeight;
    const dir = DIRS.find(([, w]) => (r -= w) < 0)?.[0] ?? 'people';
    const title = titleFor(dir);
    const base = `${dir}/${slugify(title)}`;
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    pages.push({ slug, dir, title });
  }
  // Half the links go to a skewed few pages (hubs), as real brains have.
  const hubs = shuffled(pages.map((_, i) => i), rnd);

  const stats: CorpusStats = {
    pages: opts.pages, files: 0, bytes: 0, byDir: {}, links: 0, missingLinks: 0, linksPerPage: { min: Infinity, max: 0 },
    timelineLines: 0, continuationLines: 0, pagesWithTimeline: 0, sidecars: 0, tokens: 0, vocabulary: vocab.words.length,
    wordsUsed: 0, topWord: { word: '', count: 0 }, medianWordCount: 0,
  };
  const timelineTexts: string[] = [];
  let timelineSeen = 0;
  const made = new Set<string>();
  const write = (rel: string, text: string) => {
    const path = join(outDir, rel);
    const dir = path.slice(0, path.lastIndexOf('/'));
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(path, text);
    stats.files++;
    stats.bytes += Buffer.byteLength(text);
  };
  const linkTo = (from: CorpusPage): string => {
    if (chance(0.05)) {
      stats.links++;
      stats.missingLinks++;
      const name = `${cap(pseudoWord(rnd, 2))} ${cap(pseudoWord(rnd, 2))}`;
      return `[${name}](../people/${slugify(name)}.md)`;
    }
    const to = pages[chance(0.5) ? Math.floor(rnd() * pages.length) : hubs[Math.floor(pages.length * rnd() ** 3)]!]!;
    if (to === from) return linkTo(from);
    stats.links++;
    const href = to.dir === from.dir ? `${to.slug.slice(to.dir.length + 1)}.md` : `../${to.slug}.md`;
    return `[${to.title}](${href})`;
  };
  const words = (lo: number, hi: number): string[] => Array.from({ length: int(lo, hi) }, word);
  const render = (ws: string[]): string => `${cap(ws.join(' '))}.`;

  for (const page of pages) {
    stats.byDir[page.dir] = (stats.byDir[page.dir] ?? 0) + 1;
    const created = day();
    const updated = Math.max(created, day());
    const fm = [
      `title: ${yamlString(page.title)}`,
      `type: ${DEFAULT_KIND_MAP[page.dir] ?? 'concept'}`,
      `tags: [${[...new Set(Array.from({ length: int(1, 4) }, () => tags[Math.floor(tags.length * rnd() ** 2)]!))].join(', ')}]`,
      `created: ${iso(created)}`,
      `updated: ${iso(updated)}`,
    ];
    if (chance(0.15)) fm.push(`aliases:\n  - ${yamlString(page.title.split(' ').slice(-1)[0]!)}`);
    if (page.dir === 'people' && chance(0.4)) fm.push(`company: ${yamlString(company())}`);
    if (page.dir === 'sources' && chance(0.3)) fm.push(`url: https://example.com/${slugify(page.title)}`);

    // Compiled truth: sections of sentences (word lists), links spliced in afterwards.
    const sections: { heading: string; bullets: boolean; sentences: string[][] }[] = [{ heading: 'State', bullets: false, sentences: Array.from({ length: int(2, 6) }, () => words(8, 24)) }];
    const extra = shuffled(SECTIONS, rnd).slice(0, int(1, 3));
    for (const h of extra) sections.push({ heading: h, bullets: BULLET_SECTIONS.has(h), sentences: Array.from({ length: int(2, 6) }, () => words(6, 22)) });
    const summary = chance(0.35) ? words(10, 20) : undefined;

    const hasTimeline = chance(0.95);
    const entries: { date: number; source: string; text: string[]; more: string[][] }[] = [];
    if (hasTimeline) {
      stats.pagesWithTimeline++;
      for (let n = int(2, 16); n > 0; n--) entries.push({ date: Math.max(created, day()), source: pick(SOURCES), text: words(6, 18), more: chance(0.25) ? Array.from({ length: int(1, 2) }, () => words(8, 20)) : [] });
      entries.sort((a, b) => b.date - a.date); // newest first, as GBrain writes them
    }
    // About six links per page: most in compiled truth, a fifth in timeline lines.
    const nLinks = int(2, 10);
    stats.linksPerPage.min = Math.min(stats.linksPerPage.min, nLinks);
    stats.linksPerPage.max = Math.max(stats.linksPerPage.max, nLinks);
    for (let l = 0; l < nLinks; l++) {
      const target = entries.length && chance(0.2) ? pick(entries).text : pick(pick(sections).sentences);
      target.splice(int(0, target.length), 0, linkTo(page));
    }

    const body: string[] = [`# ${page.title}`, ''];
    if (summary) body.push(`> ${render(summary)}`, '');
    for (const s of sections) {
      body.push(`## ${s.heading}`, '');
      if (s.bullets) body.push(...s.sentences.map((w) => `- ${render(w)}`), '');
      else body.push(s.sentences.map(render).join(' '), '');
    }
    let text = `---\n${fm.join('\n')}\n---\n\n${body.join('\n').trimEnd()}\n`;
    if (hasTimeline) {
      const lines = entries.map((e) => {
        stats.timelineLines++;
        stats.continuationLines += e.more.length;
        const line = render(e.text);
        timelineSeen++;
        // Reservoir sample of what timeline lines say, for the query set's phrases.
        if (timelineTexts.length < TIMELINE_SAMPLE) timelineTexts.push(line);
        else if (sampler() < TIMELINE_SAMPLE / timelineSeen) timelineTexts[Math.floor(sampler() * TIMELINE_SAMPLE)] = line;
        return [`- **${iso(e.date)}** | ${e.source} — ${line}`, ...e.more.map((m) => `  ${render(m)}`)].join('\n');
      });
      text += `\n---\n\n${chance(0.5) ? '## Timeline\n\n' : ''}${lines.join('\n')}\n`;
    }
    write(`${page.slug}.md`, text);

    if (chance(0.05)) {
      stats.sidecars++;
      const sources: Record<string, unknown> = { crustdata: { name: page.title, headcount: int(1, 5000), linkedin_url: `https://www.linkedin.com/in/${int(1000, 99999)}` } };
      if (chance(0.6)) sources.happenstance = { mutuals: int(0, 40), score: Math.round(rnd() * 1000) / 1000 };
      write(`${page.dir}/.raw/${page.slug.slice(page.dir.length + 1)}.json`, `${JSON.stringify({ sources }, null, 2)}\n`);
    }
  }

  write('index.md', `# Index\n\n${pages.slice(0, 200).map((p) => `- [${p.title}](${p.slug}.md)`).join('\n')}\n`);
  const log = Array.from({ length: Math.min(200, pages.length) }, () => {
    const p = pick(pages);
    return `- **${iso(day())}** | ${pick(['meeting', 'article', 'import', 'conversation'])} — Updated [${p.title}](${p.slug}.md)`;
  });
  write('log.md', `# Log\n\n${log.join('\n')}\n`);
  write('schema.md', '# Schema\n\nPages: compiled truth above the line, timeline below it.\n\n- **YYYY-MM-DD** | Source — Summary\n');

  const used = [...counts].filter((c) => c > 0).sort((a, b) => a - b);
  stats.tokens = tokens;
  stats.wordsUsed = used.length;
  stats.topWord = { word: vocab.words[0]!, count: counts[0]! };
  stats.medianWordCount = used[Math.floor(used.length / 2)] ?? 0;
  if (stats.linksPerPage.min === Infinity) stats.linksPerPage.min = 0;
  return { stats, model: { pages, vocabulary: vocab, counts, timelineTexts } };
}

export function describeCorpus(s: CorpusStats): string {
  const n = (x: number) => x.toLocaleString('en');
  return (
    `${n(s.pages)} pages (${Object.entries(s.byDir).map(([d, c]) => `${d} ${n(c)}`).join(', ')}), ${n(s.files)} files, ${(s.bytes / 2 ** 20).toFixed(1)} MiB; ` +
    `${n(s.links)} links (${n(s.missingLinks)} to missing pages, ${s.linksPerPage.min}-${s.linksPerPage.max} per page); ` +
    `${n(s.timelineLines)} timeline lines (+${n(s.continuationLines)} continuation lines) on ${n(s.pagesWithTimeline)} pages; ${n(s.sidecars)} sidecars; ` +
    `${n(s.tokens)} words from a vocabulary of ${n(s.vocabulary)} (${n(s.wordsUsed)} used; "${s.topWord.word}" ×${n(s.topWord.count)}, median word ×${s.medianWordCount})`
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [outDir, pages, seed = '1'] = process.argv.slice(2);
  if (!outDir || !pages || !/^\d+$/.test(pages) || !/^\d+$/.test(seed)) {
    console.error('usage: node dist/bench/scale/corpus.js OUT_DIR PAGES [SEED]   (PAGES and SEED are whole numbers)');
    process.exit(2);
  }
  const started = performance.now();
  const { stats } = generateCorpus(outDir, { pages: Number(pages), seed: Number(seed) });
  console.error(`${describeCorpus(stats)}; generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(JSON.stringify(stats));
}
