// Importing into personal goes through the deny-list like any write: refused pages are
// named, and nothing of them is written. And the MCP memory server's memory.json.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importBrain } from '../../services/gbrain/import.js';
import { importMemoryJson } from '../../services/gbrain/import-memory.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gbrain-deny-'));
  await mkdir(join(dir, 'people/.raw'), { recursive: true });
  await mkdir(join(dir, 'companies'), { recursive: true });
  await writeFile(join(dir, 'people/clean.md'), '---\ntitle: Clean\ntags: [ok]\n---\n\nLinks to [Acme](../companies/acme.md).\n\n---\n\n- **2024-01-01** | meeting — Met.\n');
  // A deny-listed e-mail in the timeline: the whole page must go, episodes and links too.
  await writeFile(join(dir, 'people/leaky.md'), '---\ntitle: Leaky\n---\n\nSee [Clean](clean.md).\n\n---\n\n- **2024-01-02** | email — Wrote to someone@corp-mail.com\n');
  await writeFile(join(dir, 'people/.raw/leaky.json'), '{"sources":{"crustdata":{"name":"Leaky"}}}\n');
  // Invalid YAML is stored as {} but the bytes are kept: the file text is scanned too.
  await writeFile(join(dir, 'companies/acme.md'), '---\ntitle: [Acme\nkey: sk_live_abcdefghijklmnop1234\n---\n\nA company.\n');
  await writeFile(`${dir}.memory.json`, [
    '{"type":"entity","name":"Ada","entityType":"person","observations":["Wrote notes"]}',
    '{"type":"entity","name":"Engine Co","entityType":"organization","observations":[]}',
    '{"type":"relation","from":"Ada","to":"Engine Co","relationType":"works_at"}',
    '{"type":"relation","from":"Ada","to":"Engine Co","relationType":"advises"}',
  ].join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(`${dir}.memory.json`, { force: true });
});

describeOnBothDatabases('GBrain import into personal and memory.json', (brain) => {
  it('refuses deny-listed pages by path and writes nothing of them', async () => {
    const ctx = await contextFor(brain(), 'personal');
    const report = await importBrain(ctx, dir);
    expect(report.pages).toMatchObject({ found: 3, created: 1, failed: 2 });
    expect(report.failed.map((f) => f.path)).toEqual(['companies/acme.md', 'people/leaky.md']);
    // The invalid frontmatter is not in the card, but the kept file text is scanned.
    expect(report.failed[0]!.reason).toMatch(/^companies\/acme\.md: refused by the deny-list: the file of this imported page write .* contains a secret \(a key, token or password\)$/);
    expect(report.failed[1]!.reason).toMatch(/^people\/leaky\.md: refused by the deny-list: .* contains an e-mail address$/);
    expect(report.ok).toBe(false);
    const q = async (sql: string) => (await brain().admin.query<{ n: number }>(sql))[0]!.n;
    expect(await q("SELECT count(*)::int AS n FROM personal.topics WHERE slug IN ('people/leaky', 'companies/acme')")).toBe(0);
    expect(await q('SELECT count(*)::int AS n FROM personal.topics')).toBe(1);
    expect(await q('SELECT count(*)::int AS n FROM personal.episodes')).toBe(1);
    expect(await q('SELECT count(*)::int AS n FROM personal.links')).toBe(1);
    expect(await q('SELECT count(*)::int AS n FROM personal.raw_data')).toBe(0);
    expect(await q("SELECT count(*)::int AS n FROM personal.gbrain_pages WHERE rel_path <> 'people/clean.md'")).toBe(0);
    expect(await q("SELECT count(*)::int AS n FROM personal.outbox WHERE slug IN ('people/leaky', 'companies/acme')")).toBe(0);
  });

  it('imports memory.json: entities with observations, relations as links; again changes nothing', async () => {
    const ctx = await contextFor(brain(), 'book');
    const r = await importMemoryJson(ctx, `${dir}.memory.json`);
    expect(r).toMatchObject({ entities: 2, relations: 2, topics: { created: 2, failed: 0 }, links: { stored: 1 } });
    const rows = await brain().admin.query<{ slug: string; kind: string; body: string }>('SELECT slug, kind, body FROM book.topics ORDER BY slug');
    expect(rows).toEqual([
      { slug: 'organization/engine-co', kind: 'company', body: '' },
      { slug: 'person/ada', kind: 'person', body: '- Wrote notes' },
    ]);
    const links = await brain().admin.query<{ to_slug: string; context: string }>('SELECT to_slug, context FROM book.links');
    expect(links).toEqual([{ to_slug: 'organization/engine-co', context: 'Ada works_at Engine Co; Ada advises Engine Co' }]);
    const outbox = (await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM book.outbox'))[0]!.n;
    const again = await importMemoryJson(ctx, `${dir}.memory.json`);
    expect(again.topics).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect((await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM book.outbox'))[0]!.n).toBe(outbox);
  });
});
