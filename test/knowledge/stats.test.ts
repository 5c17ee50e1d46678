// One stats service, two renderers: `list what=stats` (one line) and `brain stats` (a table)
// show the same figures, counted exactly, for the subject asked and nothing beyond it.
import { beforeAll, expect, it } from 'vitest';
import { statsTable } from '../../cli/commands/stats.js';
import { BrainError, createTopic, ingestDocument, linkTopics, recordEpisode, type BrainContext } from '../../services/knowledge/index.js';
import { archiveTopic } from '../../services/knowledge/archive.js';
import { statsFigures, subjectStats } from '../../services/knowledge/stats.js';
import { brainStats, statsLine } from '../../services/mcp/stats.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOn('pglite', 'stats', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'tool/psql', kind: 'tool', title: 'psql', body: 'The Postgres shell.', tags: ['postgres', 'cli'] });
    await createTopic(homelab, { slug: 'tool/pg-dump', kind: 'tool', title: 'pg_dump', body: 'Backups.', tags: ['postgres'] });
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'The storage box.' });
    await linkTopics(homelab, { from: 'tool/pg-dump', to: 'env/nas' });
    await recordEpisode(homelab, { kind: 'incident', occurredAt: '2026-01-02', title: 'Disk full', topics: ['env/nas'] });
    await ingestDocument(homelab, { content: '# Notes\n\nThe NAS filled up.\n', title: 'Notes' });
  });

  it('counts every figure of the subject, kinds most first', async () => {
    const s = await subjectStats(homelab);
    expect(s).toEqual({
      subject: 'homelab',
      topics: 3,
      byKind: { tool: 2, environment: 1 },
      links: 1,
      tags: 3,
      distinctTags: 2,
      archived: 0,
      episodes: 1,
      raw: 0,
      documents: 1,
      importedPages: 0,
      ingestRecords: 0,
    });
    expect(Object.keys(s.byKind)).toEqual(['tool', 'environment']);
  });

  it('the MCP line and the CLI table show the same figures in the same order', async () => {
    const s = await subjectStats(homelab);
    const line = statsLine(s);
    expect(line).toBe('homelab: 3 cards (tool 2, environment 1), 1 episode, 1 link, 3 tags (2 distinct), 0 raw records, 1 document, 0 imported pages, 0 ingest records');
    const table = statsTable(s).split('\n');
    expect(table[0]).toMatch(/^Subject +homelab$/);
    // Every figure, as the table prints it: label, value (and detail), then the per-kind rows.
    const fromTable = table.slice(1).filter((r) => !r.startsWith('  ')).map((r) => r.replace(/ {2,}/, ': ').toLowerCase());
    expect(fromTable).toEqual(statsFigures(s).map((f) => `${f.label}: ${f.value}${f.detail ? ` (${f.detail})` : ''}`));
    expect(table.filter((r) => r.startsWith('  ')).map((r) => r.trim().split(/ +/))).toEqual([['tool', '2'], ['environment', '1']]);
    for (const f of statsFigures(s)) expect(line).toContain(`${f.value} ${f.value === 1 ? f.label.slice(0, -1) : f.label}`);
  });

  it('covers personal from a project, one line per subject, and refuses another project', async () => {
    const text = await brainStats(homelab, ['homelab', 'personal']);
    expect(text.split('\n').map((l) => l.split(':')[0])).toEqual(['homelab', 'personal']);
    expect(text).toMatch(/^personal: 0 cards, 0 episodes/m);
    const refused = await subjectStats(homelab, 'novel').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BrainError);
    expect((refused as BrainError).code).toBe('forbidden');
  });

  it('an archived card leaves the live counts and shows as its own figure in both renderers', async () => {
    await archiveTopic(homelab, { slug: 'tool/pg-dump', reason: 'superseded' });
    const s = await subjectStats(homelab);
    expect(s).toMatchObject({ topics: 2, byKind: { environment: 1, tool: 1 }, archived: 1 });
    expect(statsLine(s)).toMatch(/^homelab: 2 cards \(environment 1, tool 1\), 1 archived card, 1 episode,/);
    expect(statsTable(s)).toMatch(/^Archived cards +1$/m);
  });

  it('counts again only the tables named as written since, taking the other figures as they were', async () => {
    const before = await subjectStats(homelab);
    await createTopic(homelab, { slug: 'tool/restic', kind: 'tool', title: 'restic', body: 'Backups, deduplicated.', tags: ['backup'] });
    await linkTopics(homelab, { from: 'tool/restic', to: 'env/nas' });
    const full = await subjectStats(homelab);
    expect(full).toMatchObject({ topics: before.topics + 1, links: before.links + 1, tags: before.tags + 1, distinctTags: before.distinctTags + 1 });
    // Told only the links changed: the new link is counted, the new card and tag are not (taken from before).
    const linksOnly = await subjectStats(homelab, undefined, { stats: before, changed: new Set(['links']) });
    expect(linksOnly).toEqual({ ...before, links: full.links });
    // Told every table the outbox named: the same as counting everything.
    expect(await subjectStats(homelab, undefined, { stats: before, changed: new Set(['topics', 'links', 'topic_tags']) })).toEqual(full);
  });
});
