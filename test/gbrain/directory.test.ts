// The fixture brain (test/fixtures/gbrain/brain), plus files whose exact bytes an editor or
// git could normalise (CRLF, BOM, lone CR, not UTF-8), written here in beforeAll, must
// come back byte for byte through readBrainDirectory → writeBrainDirectory.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBrainDirectory, writeBrainDirectory, type BrainDirectory } from '../../services/gbrain/directory.js';
import { DEFAULT_KIND_MAP, kindForPath, UnknownDirectoryError } from '../../services/gbrain/kinds.js';
import { extractLinks } from '../../services/gbrain/links.js';
import { parsePage } from '../../services/gbrain/page.js';
import { sidecarRecords } from '../../services/gbrain/sidecar.js';
import { parseTimeline } from '../../services/gbrain/timeline.js';
import { listFiles } from '../../bench/gbrain/list-files.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/gbrain/brain');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Generated here, not committed: their bytes are what tooling likes to "fix". */
const TRICKY: Record<string, Buffer> = {
  'people/crlf-person.md': Buffer.from('---\r\ntitle: CRLF Person\r\ntags: [a]\r\n---\r\n\r\n# CRLF Person\r\n\r\nKnows [Pedro](pedro-franceschi.md).\r\n\r\n---\r\n\r\n- **2024-01-01** | meeting — Met.\r\n  Detail.\r\n'),
  'people/bom-person.md': Buffer.concat([BOM, Buffer.from('---\ntitle: BOM Person\n---\n\nText.\n')]),
  'companies/bom-crlf.md': Buffer.concat([BOM, Buffer.from('---\r\ntitle: Both\r\n---\r\n\r\nText.\r\n\r\n---\r\n\r\n- **2024-01-01** | a — b')]),
  'concepts/mixed-endings.md': Buffer.from('---\ntitle: Mixed\r\n---\n\r\nLine\r\nLine\n\n---\r\n\nT\r\n'),
  'concepts/lone-cr.md': Buffer.from('Old Mac\rline endings\r---\r'),
  'concepts/latin1.md': Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]), // "# Café" in latin1
  'companies/.raw/bom-crlf.json': Buffer.concat([BOM, Buffer.from('{\r\n  "sources": {\r\n    "crustdata": { "n": 1 }\r\n  }\r\n}\r\n')]),
  'people/.raw/orphan.json': Buffer.from('{"sources":{"exa":{}}}'),
  'people/.raw/bom-person.json': Buffer.from('{"sources": '),
};
/** Read and reported, or skipped, but never written back. */
const NOT_WRITTEN: Record<string, Buffer> = {
  '.obsidian/workspace.json': Buffer.from('{}'),
  '.DS_Store': Buffer.from([0, 1, 2]),
  'people/.hidden.md': Buffer.from('hidden\n'),
  'people/.raw/notes.txt': Buffer.from('not a sidecar\n'),
  'misc/thing.md': Buffer.from('# In an unknown directory\n'),
  'media/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
};

let root: string;
let src: string;
let brain: BrainDirectory;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'gbrain-dir-'));
  src = join(root, 'src');
  await cp(FIXTURE, src, { recursive: true });
  for (const [rel, bytes] of Object.entries({ ...TRICKY, ...NOT_WRITTEN })) {
    await mkdir(dirname(join(src, rel)), { recursive: true });
    await writeFile(join(src, rel), bytes);
  }
  brain = await readBrainDirectory(src);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the committed fixtures', () => {
  it('still have their exact bytes (no editor or git normalisation)', async () => {
    expect((await readFile(join(FIXTURE, 'concepts/empty.md'))).length).toBe(0);
    expect((await readFile(join(FIXTURE, 'concepts/no-trailing-newline.md'), 'utf8')).endsWith('The end')).toBe(true);
    expect((await readFile(join(FIXTURE, 'people/.raw/zoë-müller.json'), 'utf8')).endsWith('}}}')).toBe(true);
    expect(await readFile(join(FIXTURE, 'companies/brex.md'), 'utf8')).toContain('\n--- \n');
  });
});

describe('readBrainDirectory → writeBrainDirectory', () => {
  it('writes every file it read back byte for byte, and nothing else', async () => {
    const dst = join(root, 'dst');
    await writeBrainDirectory(dst, brain.pages, brain.specials, brain.sidecars);
    const expected = (await listFiles(src)).filter((f) => !(f in NOT_WRITTEN));
    expect(await listFiles(dst)).toEqual(expected);
    for (const f of expected) {
      const [a, b] = [await readFile(join(src, f)), await readFile(join(dst, f))];
      expect(b.equals(a), f).toBe(true);
    }
    expect(expected).toContain('people/zoë-müller.md');
    expect(expected).toContain('projects/deep/nested/page.md');
  });

  it('gives pages their slug and kind, root pages the root kind', () => {
    const kinds = Object.fromEntries(brain.pages.map((p) => [p.slug, p.kind]));
    expect(kinds).toMatchObject({
      'people/pedro-franceschi': 'person',
      'people/zoë-müller': 'person',
      'companies/brex': 'company',
      'deals/brex-series-d': 'deal',
      'meetings/2024-01-15-board': 'source',
      'projects/deep/nested/page': 'project',
      'concepts/empty': 'concept',
      'root-note': 'concept',
    });
    expect(brain.pages.map((p) => p.slug)).not.toContain('people/.hidden');
    expect(brain.pages.find((p) => p.slug === 'people/crlf-person')!.lineEnding).toBe('crlf');
    expect(brain.pages.find((p) => p.slug === 'companies/bom-crlf')!.raw.bom).toBe(true);
  });

  it('parses the pages: frontmatter, compiled truth, timeline', () => {
    const pedro = brain.pages.find((p) => p.slug === 'people/pedro-franceschi')!;
    expect(pedro.frontmatter).toMatchObject({ title: 'Pedro Franceschi', tags: ['founder', 'fintech', 'yc-alum'], created: '2024-01-15' });
    expect(parseTimeline(pedro.timeline).map((e) => [e.date, e.source])).toEqual([
      ['2024-03-01', 'meeting'],
      ['2024-01-15', 'email'],
      ['2023-11-02', 'manual'],
    ]);
    const brex = brain.pages.find((p) => p.slug === 'companies/brex')!;
    expect(brex.compiledTruth).toContain('a horizontal rule inside a fence is not the separator');
    expect(brex.compiledTruth).toContain('Stars are a rule');
    expect(brex.timeline.startsWith('## Timeline')).toBe(true);
    expect(brex.timeline).toContain('A second rule inside the timeline stays in the timeline.');
    const deal = brain.pages.find((p) => p.slug === 'deals/brex-series-d')!;
    expect(deal.compiledTruth).toBe('');
    expect(parseTimeline(deal.timeline)).toHaveLength(1);
    const zoe = brain.pages.find((p) => p.slug === 'people/zoë-müller')!;
    expect(zoe.frontmatter.tags).toEqual(['engineer', '東京']);
    expect(zoe.compiledTruth).toContain('日本語のテキストも含まれています。');
  });

  it('finds links, including links to pages that do not exist', () => {
    const slugs = new Set(brain.pages.map((p) => p.slug));
    const links = brain.pages.flatMap((p) => extractLinks(`${p.compiledTruth}\n\n${p.timeline}`, p.slug).map((l) => ({ from: p.slug, ...l })));
    const missing = [...new Set(links.filter((l) => !slugs.has(l.toSlug)).map((l) => l.toSlug))].sort();
    expect(missing).toEqual(['people/ghost', 'people/henrique-dubugras', 'people/someone-missing', 'projects/deep/nested/other', 'yc/w24']);
    expect(links.filter((l) => l.from === 'concepts/compiled-truth').map((l) => l.toSlug)).toEqual(['concepts/timeline', 'root-note', 'people/zoë-müller']);
    expect(links.find((l) => l.from === 'people/pedro-franceschi' && l.toSlug === 'meetings/2024-01-15-board')!.anchor).toBe('decisions');
    expect(links.filter((l) => l.from === 'projects/deep/nested/page').map((l) => l.toSlug)).toEqual(['companies/brex', 'projects/deep/nested/other']);
  });

  it('keeps the special files verbatim and reads log.md into ingest records', async () => {
    expect(brain.specials.map((s) => s.relPath)).toEqual(['README.md', 'index.md', 'log.md', 'schema.md']);
    expect(brain.specials.find((s) => s.relPath === 'schema.md')!.bytes.equals(await readFile(join(FIXTURE, 'schema.md')))).toBe(true);
    expect(brain.ingestLog.map((r) => [r.date, r.sourceType])).toEqual([
      ['2024-01-15', 'meeting'],
      ['2024-02-01', 'article'],
      ['2024-03-05', 'ingest'],
      ['2024-04-10', 'conversation'],
      ['2024-04-10', 'log'],
    ]);
    expect(brain.ingestLog[0]!.pagesUpdated).toEqual(['people/pedro-franceschi', 'companies/brex']);
  });

  it('reads sidecars, one raw record per source', () => {
    const pedro = brain.sidecars.find((s) => s.slug === 'people/pedro-franceschi')!;
    expect(sidecarRecords(pedro).map((r) => r.source)).toEqual(['crustdata', 'happenstance', 'exa']);
    expect(sidecarRecords(pedro)[1]!.data).toEqual({ mutuals: 12, score: 0.87 });
    expect(brain.sidecars.find((s) => s.slug === 'people/zoë-müller')!.sources).toEqual({ crustdata: { name: 'Zoë Müller' } });
    expect(brain.sidecars.find((s) => s.slug === 'companies/bom-crlf')!.sources).toEqual({ crustdata: { n: 1 } });
    expect(brain.sidecars.find((s) => s.slug === 'people/bom-person')!.sources).toEqual({});
  });

  it('reports problems with the file and the reason, instead of throwing', () => {
    const reasons = Object.fromEntries(brain.problems.map((p) => [p.path, p.reason]));
    expect(Object.keys(reasons).sort()).toEqual(
      ['concepts/bad-yaml.md', 'concepts/latin1.md', 'media/logo.png', 'misc', 'people/.raw/bom-person.json', 'people/.raw/notes.txt', 'people/.raw/orphan.json'].sort(),
    );
    expect(reasons['misc']).toBe(
      'misc/: unknown directory; the known directories are civic, companies, concepts, deals, media, meetings, people, programs, projects, sources, yc (pass a kind map that maps "misc" to import it); its files were not read',
    );
    expect(reasons['concepts/bad-yaml.md']).toMatch(/^concepts\/bad-yaml\.md: the frontmatter is not valid YAML/);
    expect(reasons['people/.raw/bom-person.json']).toMatch(/^people\/\.raw\/bom-person\.json: not valid JSON/);
    expect(reasons['people/.raw/orphan.json']).toMatch(/sidecar for "people\/orphan", which is not a page/);
    expect(reasons['media/logo.png']).toMatch(/^media\/logo\.png: not a markdown page/);
  });

  it('takes a kind map and a root kind', async () => {
    const b = await readBrainDirectory(src, { kindMap: { ...DEFAULT_KIND_MAP, misc: 'note', people: 'character' }, rootKind: 'location' });
    const kinds = Object.fromEntries(b.pages.map((p) => [p.slug, p.kind]));
    expect(kinds).toMatchObject({ 'misc/thing': 'note', 'people/pedro-franceschi': 'character', 'root-note': 'location' });
    expect(b.problems.map((p) => p.path)).not.toContain('misc');
    expect(() => kindForPath('misc/x.md', { people: 'person' })).toThrow(UnknownDirectoryError);
    expect(() => kindForPath('misc/x.md', { people: 'person' })).toThrow('misc/: unknown directory; the known directories are people');
  });

  it('writes edited pages and sidecars in their own format', async () => {
    const dst = join(root, 'edited');
    const pages = brain.pages.map((p) => (p.slug === 'people/crlf-person' ? { ...p, timeline: `- **2024-02-02** | email — New.\n${p.timeline}` } : p));
    const sidecars = brain.sidecars.map((s) => (s.slug === 'people/zoë-müller' ? { ...s, sources: { ...s.sources, exa: { hits: 1 } } } : s));
    await writeBrainDirectory(dst, pages, brain.specials, sidecars);
    const page = await readFile(join(dst, 'people/crlf-person.md'), 'utf8');
    expect(page.endsWith('\r\n\r\n---\r\n\r\n- **2024-02-02** | email — New.\r\n- **2024-01-01** | meeting — Met.\r\n  Detail.\r\n')).toBe(true);
    expect(parsePage(page, 'people/crlf-person.md').frontmatter).toEqual({ title: 'CRLF Person', tags: ['a'] });
    expect(JSON.parse(await readFile(join(dst, 'people/.raw/zoë-müller.json'), 'utf8'))).toEqual({ sources: { crustdata: { name: 'Zoë Müller' }, exa: { hits: 1 } } });
    const untouched = await readFile(join(dst, 'people/pedro-franceschi.md'));
    expect(untouched.equals(await readFile(join(src, 'people/pedro-franceschi.md')))).toBe(true);
  });

  it('refuses paths outside the directory and files given twice, naming them', async () => {
    const page = parsePage('x\n', '../escape.md');
    await expect(writeBrainDirectory(join(root, 'bad'), [page])).rejects.toThrow('../escape.md: not a relative path inside the brain directory');
    const twice = parsePage('x\n', 'concepts/a.md');
    await expect(writeBrainDirectory(join(root, 'bad'), [twice, twice])).rejects.toThrow('concepts/a.md: given twice');
  });

  it('reports a directory that does not exist as a problem', async () => {
    const b = await readBrainDirectory(join(root, 'nope'));
    expect(b.pages).toEqual([]);
    expect(b.problems[0]!.reason).toMatch(/nope: cannot list the directory \(ENOENT\)/);
  });
});
