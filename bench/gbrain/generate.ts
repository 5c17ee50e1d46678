// A synthetic GBrain-style brain for benchmarks and round-trip tests: pages with YAML
// frontmatter, ## sections, wiki links (some to missing pages), timelines, .raw/ sidecars
// for ~12% of pages, CRLF on ~3% of files, a BOM on ~1%, and index.md/log.md/schema.md.
// Deterministic: the same seed gives the same bytes.
//
//   node dist/bench/gbrain/generate.js OUT_DIR [pages] [seed]
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_KIND_MAP } from '../../services/gbrain/kinds.js';
import { slugify } from '../../services/gbrain/memory-json.js';
import { mulberry32 } from '../prng.js';

export interface GenerateOptions {
  /** Number of pages. Default 7500 (the size of the brain GBrain was built for). */
  pages?: number;
  seed?: number;
}

export interface GenerateStats {
  pages: number;
  sidecars: number;
  crlf: number;
  bom: number;
  links: number;
  missingLinks: number;
  timelineEntries: number;
}

const DIRS: readonly (readonly [dir: string, weight: number])[] = [
  ['people', 30], ['companies', 15], ['concepts', 11], ['sources', 9], ['meetings', 8], ['projects', 6],
  ['deals', 5], ['media', 5], ['yc', 4], ['civic', 4], ['programs', 3],
];
const FIRST = ['Pedro', 'Ana', 'Zoë', 'José', 'Łukasz', 'Mei', 'Olu', 'Sven', 'Priya', 'Hiroshi', 'Amélie', 'Kwame', 'Ingrid', 'Raj', 'Sofía', 'Yuki', 'Dmitri', 'Fatima'];
const LAST = ['Franceschi', 'Müller', 'Silva', 'Nakamura', 'Okafor', 'Dubois', 'Kowalski', 'Chen', 'Patel', 'García', 'Johansson', 'Haddad', 'Novak', 'Søndergaard'];
const NOUNS = ['Labs', 'Robotics', 'Capital', 'Health', 'Systems', 'Energy', 'Bio', 'Networks', 'Foods', 'Analytics', 'Works', 'Studio'];
const ROOTS = ['Brex', 'Nova', 'Orbit', 'Kite', 'Atlas', 'Pulse', 'Vanta', 'Lumen', 'Cobalt', 'Fjord', 'Ember', 'Quill', '東京', 'Zenith'];
const WORDS = ('the team shipped a new product and raised a round while hiring engineers for growth in europe; revenue doubled after the pivot ' +
  'to enterprise customers with strong retention but churn in smb remains a concern for the board and investors are watching closely ' +
  '会議 では 新しい 計画 が 議論 された and follow up is pending on pricing strategy hiring plan and the next milestone').split(' ');
const SOURCES = ['meeting', 'email', 'manual', 'crustdata', 'happenstance', 'article', 'call', 'linkedin'];
const TAGS = ['founder', 'yc-alum', 'ai', 'fintech', 'investor', 'climate', 'hardware', 'b2b', 'seed', 'series-a', 'advisor', 'open-source'];

const prng = mulberry32;

interface Planned {
  slug: string;
  dir: string;
  title: string;
}

export async function generateBrain(outDir: string, opts: GenerateOptions = {}): Promise<GenerateStats> {
  const count = opts.pages ?? 7500;
  const rnd = prng(opts.seed ?? 1);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number): boolean => rnd() < p;
  const date = (): string => `20${int(18, 25)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`;

  // Plan every page first, so links can point at pages written later.
  const total = DIRS.reduce((s, [, w]) => s + w, 0);
  const taken = new Set<string>();
  const planned: Planned[] = [];
  for (let i = 0; i < count; i++) {
    let r = rnd() * total;
    const dir = DIRS.find(([, w]) => (r -= w) < 0)?.[0] ?? 'people';
    const title = titleFor(dir, pick, int);
    const base = `${dir}/${slugify(title)}`;
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    planned.push({ slug, dir, title });
  }

  const stats: GenerateStats = { pages: count, sidecars: 0, crlf: 0, bom: 0, links: 0, missingLinks: 0, timelineEntries: 0 };
  const files = new Map<string, Buffer>();
  const link = (from: Planned): string => {
    stats.links++;
    if (chance(0.05)) {
      stats.missingLinks++;
      return `[Someone New](../people/missing-${int(1, 9999)}.md)`;
    }
    const to = pick(planned);
    const href = to.dir === from.dir ? `${to.slug.slice(to.dir.length + 1)}.md` : `../${to.slug}.md`;
    return `[${to.title}](${href})`;
  };
  const sentence = (from: Planned | null): string => {
    const words = Array.from({ length: int(6, 16) }, () => pick(WORDS));
    if (from && chance(0.5)) words.splice(int(0, words.length), 0, link(from));
    const s = words.join(' ');
    return s[0]!.toUpperCase() + s.slice(1) + '.';
  };

  for (const page of planned) {
    const fm = [
      `title: ${yamlString(page.title)}`,
      `type: ${DEFAULT_KIND_MAP[page.dir] ?? 'concept'}`,
      `tags: [${Array.from(new Set(Array.from({ length: int(1, 4) }, () => pick(TAGS)))).join(', ')}]`,
      `created: ${date()}`,
      `updated: ${date()}`,
    ];
    if (chance(0.2)) fm.push(`aliases:\n  - ${yamlString(page.title.split(' ')[0]!)}\n  - "${page.title}: alias"`);
    if (chance(0.1)) fm.push('score: ' + int(1, 5));
    const body: string[] = [`# ${page.title}`, '', '## State', '', Array.from({ length: int(1, 4) }, () => sentence(page)).join(' '), ''];
    if (chance(0.5)) body.push('## Assessment', '', Array.from({ length: int(1, 3) }, () => sentence(page)).join(' '), '');
    if (chance(0.4)) body.push('## Open Threads', '', ...Array.from({ length: int(1, 3) }, () => `- ${sentence(page)}`), '');
    // A horizontal rule inside code must not be taken for the separator.
    if (chance(0.05)) body.push('```yaml', '---', `name: ${page.title}`, '---', '```', '');
    let text = `---\n${fm.join('\n')}\n---\n\n${body.join('\n').trimEnd()}\n`;
    if (chance(0.9)) {
      const entries: string[] = [];
      for (let n = int(1, 8); n > 0; n--) {
        stats.timelineEntries++;
        let e = `- **${date()}** | ${pick(SOURCES)} — ${sentence(page)}`;
        if (chance(0.3)) e += `\n  ${sentence(page)}\n  ${sentence(page)}`;
        entries.push(e);
      }
      text += `\n---\n\n${chance(0.5) ? '## Timeline\n\n' : ''}${entries.join('\n')}\n`;
    }
    if (chance(0.03)) {
      stats.crlf++;
      text = text.replace(/\n/g, '\r\n');
    }
    const bom = chance(0.01);
    if (bom) stats.bom++;
    files.set(`${page.slug}.md`, Buffer.from((bom ? '\uFEFF' : '') + text, 'utf8'));

    if (chance(0.12)) {
      stats.sidecars++;
      const sources: Record<string, unknown> = { crustdata: { name: page.title, headcount: int(1, 5000), linkedin_url: `https://www.linkedin.com/in/${int(1000, 99999)}` } };
      if (chance(0.6)) sources.happenstance = { mutuals: int(0, 40), score: Math.round(rnd() * 1000) / 1000 };
      if (chance(0.2)) sources.exa = { results: [{ url: `https://example.com/${int(1, 1e6)}`, title: sentence(null) }] };
      const name = page.slug.slice(page.dir.length + 1);
      files.set(`${page.dir}/.raw/${name}.json`, Buffer.from(JSON.stringify({ sources }, null, 2) + '\n', 'utf8'));
    }
  }

  files.set('index.md', Buffer.from(`# Index\n\n${planned.slice(0, 200).map((p) => `- [${p.title}](${p.slug}.md)`).join('\n')}\n`, 'utf8'));
  const log = Array.from({ length: Math.min(200, count) }, () => {
    const p = pick(planned);
    return `- **${date()}** | ${pick(['meeting', 'article', 'import', 'conversation'])} — Updated [${p.title}](${p.slug}.md)`;
  });
  files.set('log.md', Buffer.from(`# Log\n\n${log.join('\n')}\n`, 'utf8'));
  files.set('schema.md', Buffer.from('# Schema\n\nPages: compiled truth above the line, timeline below it.\n\n- **YYYY-MM-DD** | Source — Summary\n', 'utf8'));

  const dirs = new Set([...files.keys()].map((f) => dirname(join(outDir, f))));
  for (const d of dirs) await mkdir(d, { recursive: true });
  const queue = [...files];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await writeFile(join(outDir, next[0]), next[1]);
    }),
  );
  return stats;
}

function titleFor(dir: string, pick: <T>(xs: readonly T[]) => T, int: (lo: number, hi: number) => number): string {
  switch (dir) {
    case 'people':
      return `${pick(FIRST)} ${pick(LAST)}`;
    case 'companies':
    case 'yc':
      return `${pick(ROOTS)} ${pick(NOUNS)}`;
    case 'deals':
      return `${pick(ROOTS)} Series ${pick(['A', 'B', 'C', 'Seed'])}`;
    case 'meetings':
      return `Meeting with ${pick(FIRST)} ${int(1, 999)}`;
    default:
      return `${pick(ROOTS)} ${pick(['Thesis', 'Report', 'Program', 'Initiative', 'Notes', 'Talk'])} ${int(1, 99)}`;
  }
}

function yamlString(s: string): string {
  return /^[\p{L}\p{N} ]+$/u.test(s) ? s : JSON.stringify(s);
}

// CLI entry, when this file is the program run.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [outDir, pages = '7500', seed = '1'] = process.argv.slice(2);
  if (!outDir || !/^\d+$/.test(pages) || !/^\d+$/.test(seed)) {
    console.error('usage: node dist/bench/gbrain/generate.js OUT_DIR [pages] [seed]   (pages and seed are whole numbers)');
    process.exit(2);
  }
  const stats = await generateBrain(outDir, { pages: Number(pages), seed: Number(seed) });
  console.log(JSON.stringify(stats));
}
