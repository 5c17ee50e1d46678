// Import a GBrain directory into a subject and export it again, on both databases:
// every unchanged file comes back byte for byte; a card changed in claude-brain comes
// back edited in the same format; a second import writes nothing.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { exportBrain } from '../../services/gbrain/export.js';
import { importBrain, type ImportReport } from '../../services/gbrain/import.js';
import { parsePage } from '../../services/gbrain/page.js';
import { createTopic, history, recordEpisode, tagTopic, updateTopic, type BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { compareTrees, listFiles, scratchBrain, tempDirs } from './files.js';

const { make: tempDir, keep } = tempDirs();

describeOnBothDatabases('GBrain import and export', (brain) => {
  let ctx: BrainContext;
  let src: string;
  let first: ImportReport;

  const count = async (table: string): Promise<number> => {
    const [r] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.${table}`);
    return r!.n;
  };

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    src = await scratchBrain();
    keep(src);
    first = await importBrain(ctx, src);
  });

  it('imports every page, link, timeline line, sidecar and special file, and validates', async () => {
    expect(first.failed).toEqual([]);
    const files = await listFiles(src);
    const pages = files.filter((f) => f.endsWith('.md') && !/(^|\/)(index|log|schema|README)\.md$/.test(f));
    expect(first.pages.found).toBe(pages.length);
    expect(first.pages.created).toBe(pages.length);
    expect(first.pages.stored).toBe(pages.length);
    expect(first.links.stored).toBe(first.links.distinct);
    expect(first.links.parsed).toBeGreaterThan(first.links.distinct); // pedro links zoë twice
    expect(first.timeline.episodes).toBe(first.timeline.entries);
    expect(first.sidecars).toEqual({ found: 3, stored: 3, rawSources: 3 + 1 + 2 });
    expect(first.specialFiles).toEqual({ found: 4, stored: 4 });
    expect(first.ingestLog.entries).toBeGreaterThan(0);
    expect(first.ingestLog.stored).toBe(first.ingestLog.entries);
    expect(first.contentCheck.different).toEqual([]);
    expect(first.contentCheck.checked).toBe(files.length);
    expect(first.links.missingTargets).toEqual(expect.arrayContaining(['people/someone-missing', 'people/ghost', 'people/henrique-dubugras', 'yc/w24']));
    expect(first.links.missingTargets).not.toContain('people/pedro-franceschi');
    // Invalid YAML and invalid UTF-8 are caveats, not failures; their pages are in.
    expect(first.warnings.map((w) => w.path)).toEqual(expect.arrayContaining(['concepts/bad-yaml.md', 'concepts/latin1.md']));
    expect(first.ok).toBe(true);
  });

  it('stores the page as a card: slug, kind, title, frontmatter in order, body, verbatim timeline', async () => {
    const [pedro] = await brain().admin.query<{ kind: string; title: string; fm: string; body: string; timeline: string }>(
      "SELECT kind, title, frontmatter::text AS fm, body, timeline FROM homelab.topics WHERE slug = 'people/pedro-franceschi'",
    );
    expect(pedro!.kind).toBe('person');
    expect(pedro!.title).toBe('Pedro Franceschi');
    expect(Object.keys(JSON.parse(pedro!.fm))).toEqual(['title', 'type', 'tags', 'created', 'linkedin']);
    expect(pedro!.body.startsWith('# Pedro Franceschi\n\n## State')).toBe(true);
    expect(pedro!.timeline).toContain('- **2023-11-02** | manual -- Old double-hyphen entry');
    const kinds = await brain().admin.query<{ slug: string; kind: string; title: string }>(
      "SELECT slug, kind, title FROM homelab.topics WHERE slug IN ('meetings/2024-01-15-board', 'root-note', 'projects/deep/nested/page', 'people/zoë-müller', 'concepts/compiled-truth', 'concepts/empty') ORDER BY slug",
    );
    expect(kinds).toEqual([
      { slug: 'concepts/compiled-truth', kind: 'concept', title: 'Compiled truth' },
      { slug: 'concepts/empty', kind: 'concept', title: 'empty' },
      { slug: 'meetings/2024-01-15-board', kind: 'source', title: 'Board meeting 2024-01-15' },
      { slug: 'people/zoë-müller', kind: 'person', title: 'Zoë Müller' },
      { slug: 'projects/deep/nested/page', kind: 'project', title: 'Nested page' },
      { slug: 'root-note', kind: 'concept', title: 'A page at the root' },
    ]);
    const [bom] = await brain().admin.query<{ summary: string }>("SELECT summary FROM homelab.topics WHERE slug = 'companies/bom-co'");
    expect(bom!.summary).toBe('Makes byte order marks.');
  });

  it('turns timeline lines into dated episodes, links with their sentence, tags and raw data', async () => {
    const episodes = await brain().admin.query<{ kind: string; day: string; date_only: boolean; source_label: string; summary: string; detail: string }>(
      `SELECT e.kind, to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, e.date_only, e.source_label, e.summary, e.detail
         FROM homelab.episodes e JOIN homelab.episode_topics et ON et.episode_id = e.id JOIN homelab.topics t ON t.id = et.topic_id
        WHERE t.slug = 'people/pedro-franceschi' ORDER BY e.occurred_at DESC`,
    );
    expect(episodes).toEqual([
      { kind: 'meeting', day: '2024-03-01', date_only: true, source_label: 'meeting', summary: 'Discussed expansion into Europe with [Zoë Müller](zoë-müller.md).', detail: 'Agreed on a pilot in Lisbon.\nFollow-up in two weeks.' },
      { kind: 'note', day: '2024-01-15', date_only: true, source_label: 'email', summary: 'Intro from [YC W24](../yc/w24.md)', detail: '' },
      { kind: 'note', day: '2023-11-02', date_only: true, source_label: 'manual', summary: 'Old double-hyphen entry', detail: '' },
    ]);
    const links = await brain().admin.query<{ to_slug: string; relation: string; context: string }>(
      "SELECT l.to_slug, l.relation, l.context FROM homelab.links l JOIN homelab.topics t ON t.id = l.from_topic_id WHERE t.slug = 'people/pedro-franceschi' ORDER BY l.to_slug",
    );
    expect(links.map((l) => l.to_slug)).toEqual(['companies/brex', 'meetings/2024-01-15-board', 'people/someone-missing', 'people/zoë-müller', 'yc/w24']);
    expect(links.every((l) => l.relation === 'mentions')).toBe(true);
    expect(links[0]!.context).toBe('Co-founder and CEO of [Brex](../companies/brex.md).');
    const tags = await brain().admin.query<{ tag: string }>("SELECT tag FROM homelab.topic_tags tt JOIN homelab.topics t ON t.id = tt.topic_id WHERE t.slug = 'people/zoë-müller' ORDER BY tag");
    expect(tags.map((t) => t.tag)).toEqual(['engineer', '東京']);
    const raw = await brain().admin.query<{ source: string; data: string }>(
      "SELECT r.source, r.data::text AS data FROM homelab.raw_data r JOIN homelab.topics t ON t.id = r.topic_id WHERE t.slug = 'people/pedro-franceschi' ORDER BY source",
    );
    expect(raw.map((r) => r.source)).toEqual(['crustdata', 'exa', 'happenstance']);
    expect(JSON.parse(raw[2]!.data)).toEqual({ mutuals: 12, score: 0.87 });
    const log = await brain().admin.query<{ source_type: string; pages_updated: string }>("SELECT source_type, pages_updated::text FROM homelab.gbrain_ingest_log WHERE origin = 'log.md' ORDER BY line");
    expect(log[0]).toEqual({ source_type: 'meeting', pages_updated: '["people/pedro-franceschi","companies/brex"]' });
  });

  it('exports every file back byte for byte', async () => {
    const out = await tempDir('gbrain-out-');
    const report = await exportBrain(ctx, out);
    expect(report.problems).toEqual([]);
    expect(report.pages.changed + report.pages.new).toBe(0);
    expect(await compareTrees(src, out)).toEqual({ onlyA: [], onlyB: [], different: [] });
  });

  it('a second import changes nothing: no card, version or outbox row', async () => {
    const outbox = await count('outbox');
    const versions = await count('versions');
    const again = await importBrain(ctx, src);
    expect(again.failed).toEqual([]);
    expect(again.pages).toMatchObject({ created: 0, updated: 0, unchanged: again.pages.found });
    expect(again.ok).toBe(true);
    expect(await count('outbox')).toBe(outbox);
    expect(await count('versions')).toBe(versions);
  });

  it('a card changed in claude-brain is exported edited, in the same format, and keeps a version', async () => {
    await updateTopic(ctx, { slug: 'people/pedro-franceschi', body: '# Pedro Franceschi\n\n## State\n\nNow chairman of [Brex](../companies/brex.md).' });
    await tagTopic(ctx, { slug: 'people/pedro-franceschi', tags: ['chairman'] });
    await recordEpisode(ctx, { kind: 'meeting', occurredAt: '2025-01-02', title: 'Board call', summary: 'Board call about the chair', sourceLabel: 'meeting', topics: ['people/pedro-franceschi'] });
    expect((await history(ctx, { slug: 'people/pedro-franceschi' })).total).toBeGreaterThan(1);
    await createTopic(ctx, { slug: 'ada-lovelace', kind: 'person', title: 'Ada Lovelace', body: 'First programmer. Knew [Babbage](people/charles-babbage.md).', tags: ['math'] });
    await recordEpisode(ctx, { kind: 'note', occurredAt: '1843-09-01', title: 'Notes published', summary: 'Published the notes on the Analytical Engine', sourceLabel: 'article', topics: ['ada-lovelace'] });

    const out = await tempDir('gbrain-out-');
    const report = await exportBrain(ctx, out);
    expect(report.problems).toEqual([]);
    expect(report.pages).toMatchObject({ changed: 1, new: 1 });
    const diff = await compareTrees(src, out);
    expect(diff).toEqual({ onlyA: [], onlyB: ['people/ada-lovelace.md'], different: ['people/pedro-franceschi.md'] });

    const before = (await readFile(join(src, 'people/pedro-franceschi.md'), 'utf8'));
    const after = await readFile(join(out, 'people/pedro-franceschi.md'), 'utf8');
    const page = parsePage(after, 'people/pedro-franceschi.md');
    expect(page.compiledTruth).toBe('# Pedro Franceschi\n\n## State\n\nNow chairman of [Brex](../companies/brex.md).');
    expect(page.frontmatter.tags).toEqual(['founder', 'fintech', 'yc-alum', 'chairman']);
    expect(after.startsWith('---\ntitle: Pedro Franceschi\ntype: person\n')).toBe(true);
    // The new episode is a new line at the top; the old lines are untouched.
    expect(page.timeline.split('\n')[0]).toBe('- **2025-01-02** | meeting — Board call about the chair');
    expect(after.endsWith(before.slice(before.indexOf('- **2024-03-01**')))).toBe(true);

    const ada = parsePage(await readFile(join(out, 'people/ada-lovelace.md')), 'people/ada-lovelace.md');
    expect(ada.frontmatter).toEqual({ title: 'Ada Lovelace', type: 'person', tags: ['math'] });
    expect(ada.compiledTruth).toBe('First programmer. Knew [Babbage](people/charles-babbage.md).');
    expect(ada.timeline).toBe('- **1843-09-01** | article — Published the notes on the Analytical Engine');
  });

  it('re-importing the unchanged file keeps the edit made in claude-brain; a changed file updates the card and keeps a version', async () => {
    const unchanged = await importBrain(ctx, src);
    expect(unchanged.pages.updated).toBe(0);
    const [kept] = await brain().admin.query<{ body: string }>("SELECT body FROM homelab.topics WHERE slug = 'people/pedro-franceschi'");
    expect(kept!.body).toContain('Now chairman');

    const file = join(src, 'companies/brex.md');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('Corporate cards.', 'Corporate cards and banking.').replace('- **2024-01-10** | article — Raised a round.', '- **2024-01-10** | article — Raised a bigger round.'));
    const versions = await count('versions');
    const changed = await importBrain(ctx, src);
    expect(changed.failed).toEqual([]);
    expect(changed.pages).toMatchObject({ created: 0, updated: 1 });
    expect(await count('versions')).toBeGreaterThan(versions);
    const eps = await brain().admin.query<{ summary: string }>(
      "SELECT e.summary FROM homelab.episodes e JOIN homelab.episode_topics et ON et.episode_id = e.id JOIN homelab.topics t ON t.id = et.topic_id WHERE t.slug = 'companies/brex' ORDER BY e.occurred_at DESC",
    );
    expect(eps.map((e) => e.summary)).toEqual(['Raised a bigger round.', 'A second rule inside the timeline stays in the timeline.']);
    const out = await tempDir('gbrain-out-');
    await exportBrain(ctx, out);
    expect((await readFile(join(out, 'companies/brex.md'))).equals(await readFile(file))).toBe(true);
  });
});
