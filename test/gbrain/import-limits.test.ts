// GBrain import holds every page to the limits remember holds a card to: a page over them
// (or holding text Postgres cannot store) is refused by path with the reason, the rest of
// the import goes on, and nothing of a refused page is written.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importBrain } from '../../services/gbrain/import.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gbrain-limits-'));
  await mkdir(join(dir, 'people'), { recursive: true });
  await writeFile(join(dir, 'people/fine.md'), '---\ntitle: Fine\ntags: [ok]\n---\n\nA fine page.\n\n---\n\n- **2024-02-29** | meeting — Met.\n- **0000-01-01** | meeting — Long ago.\n');
  await writeFile(join(dir, 'people/long-title.md'), `---\ntitle: ${'T'.repeat(5000)}\n---\n\nShort text.\n`);
  await writeFile(join(dir, 'people/huge.md'), `---\ntitle: Huge\n---\n\n${'word '.repeat(2_000_000)}\n`);
  await writeFile(join(dir, 'people/nul.md'), '---\ntitle: Nul\n---\n\nA \u0000 in the text.\n');
  await writeFile(join(dir, 'people/many-tags.md'), `---\ntitle: Many tags\ntags: [${Array.from({ length: 60 }, (_, i) => `t${i}`).join(', ')}]\n---\n\nTagged a lot.\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeOnBothDatabases('GBrain import enforces the card limits of remember', (brain) => {
  it('refuses each page over a limit by path with the reason, imports the rest', { timeout: 120_000 }, async () => {
    const ctx = await contextFor(brain(), 'book');
    const report = await importBrain(ctx, dir);
    expect(report.pages).toMatchObject({ found: 5, created: 2, failed: 3 });
    expect(report.failed).toHaveLength(3);
    const reasons = Object.fromEntries(report.failed.map((f) => [f.path, f.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['people/huge.md', 'people/long-title.md', 'people/nul.md']);
    expect(reasons['people/long-title.md']).toMatch(/^people\/long-title\.md: its title has 5,000 characters, more than the 300 a card's title may have; not imported$/);
    expect(reasons['people/huge.md']).toMatch(/^people\/huge\.md: its text has [\d,]{9,} characters, more than the 200,000 a card's body may have/);
    expect(reasons['people/nul.md']).toMatch(/^people\/nul\.md: its text contains NUL characters/);
    // Too many tags: the first 50 are tags, the rest stay in the frontmatter, with a warning.
    expect(report.warnings.filter((w) => w.path === 'people/many-tags.md')).toHaveLength(10);
    expect(report.warnings.some((w) => w.path === 'people/fine.md' && /0000-01-01, which is not a calendar date/.test(w.reason))).toBe(true);
    expect(report.ok).toBe(false);

    const q = async (sql: string) => (await brain().admin.query<{ n: number }>(sql))[0]!.n;
    expect(await q('SELECT count(*)::int AS n FROM book.topics')).toBe(2);
    expect(await q("SELECT count(*)::int AS n FROM book.topics WHERE slug IN ('people/long-title', 'people/huge', 'people/nul')")).toBe(0);
    expect(await q("SELECT count(*)::int AS n FROM book.topic_tags t JOIN book.topics c ON c.id = t.topic_id WHERE c.slug = 'people/many-tags'")).toBe(50);
    expect(await q('SELECT count(*)::int AS n FROM book.episodes')).toBe(1);
    expect(await q("SELECT count(*)::int AS n FROM book.gbrain_pages WHERE rel_path NOT IN ('people/fine.md', 'people/many-tags.md')")).toBe(0);
    expect(await q('SELECT max(length(title))::int AS n FROM book.topics')).toBeLessThanOrEqual(300);
  });
});
