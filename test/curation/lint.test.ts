// Lint on a subject built with every problem: the report names each, and apply fixes
// only dead links and tag variants, never a card.
import { beforeAll, expect, it } from 'vitest';
import { lint, lintMarkdown } from '../../services/curation/lint.js';
import { createTopic, linkTopics, recordEpisode, tagTopic, type BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';

describeOnBothDatabases('lint', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    const personal = await contextFor(brain(), 'personal');
    await createTopic(homelab, { slug: 'env/orphan', kind: 'environment', title: 'Forgotten box' });
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS storage server', tags: ['yc-alum'] });
    await createTopic(homelab, { slug: 'env/nas-2', kind: 'environment', title: 'NAS storage servers', tags: ['yc_alum'] });
    await tagTopic(homelab, { slug: 'env/nas', tags: ['YC Alum'] });
    // Every write path stores one spelling (yc-alum); variants come from before that, or from SQL.
    await brain().admin.exec("INSERT INTO homelab.topic_tags (topic_id, tag) SELECT id, 'YC Alum' FROM homelab.topics WHERE slug = 'env/nas'");
    await brain().admin.exec("UPDATE homelab.topic_tags SET tag = 'yc_alum' WHERE tag = 'yc-alum' AND topic_id = (SELECT id FROM homelab.topics WHERE slug = 'env/nas-2')");
    await createTopic(homelab, { slug: 'env/gone', kind: 'environment', title: 'Decommissioned' });
    await linkTopics(homelab, { from: 'env/nas', to: 'env/gone', relation: 'relates-to' });
    await linkTopics(homelab, { from: 'env/nas-2', to: 'env/nas' });
    await brain().asRole(roleOf(brain(), 'homelab'), (s) => s.exec("DELETE FROM homelab.topics WHERE slug = 'env/gone'"), { commit: true });
    await createTopic(personal, { slug: 'tool/old', kind: 'tool', title: 'Old tool' });
    await linkTopics(homelab, { from: 'env/nas', to: 'tool/old', toSubject: 'personal' });
    await brain().admin.exec("DELETE FROM personal.topics WHERE slug = 'tool/old'");
    // The link tool refuses a target that does not exist; an import may still write one.
    await brain().admin.exec("INSERT INTO homelab.links (from_topic_id, to_subject, to_slug) SELECT id, 'personal', 'tool/never-existed' FROM homelab.topics WHERE slug = 'env/nas'");
    await recordEpisode(homelab, { kind: 'note', occurredAt: '2026-11-01', title: 'checked', topics: ['env/nas-2'] });
    await brain().asRole(roleOf(brain(), 'homelab'), (s) => s.exec("INSERT INTO personal.topics (slug, kind, title) VALUES ('up/no-reason', 'concept', 'Unexplained')"), { commit: true });
  });

  it('reports each problem', async () => {
    const r = await lint(homelab);
    expect(r.orphans.map((o) => o.slug)).toEqual(['env/orphan']);
    expect(r.deadLinks.map((d) => `${d.from}->${d.toSubject}:${d.toSlug}`).sort()).toEqual([
      'env/nas->homelab:env/gone',
      'env/nas->personal:tool/never-existed',
      'env/nas->personal:tool/old',
    ]);
    expect(r.unexplainedUpcasts).toEqual([expect.objectContaining({ slug: 'up/no-reason', actor: roleOf(brain(), 'homelab'), operation: 'INSERT' })]);
    // Found by title, weighed by search before add's judgement: the same title words, the same kind.
    expect(r.duplicateTopics).toEqual([expect.objectContaining({ a: 'env/nas', b: 'env/nas-2', by: 'title', verdict: 'same' })]);
    expect(r.duplicateTags).toEqual([{ variants: ['YC Alum', 'yc-alum', 'yc_alum'], keep: 'yc-alum' }]);
    const md = lintMarkdown(r);
    expect(md).toContain('## Orphans (no links, no episodes) — reported only (1)');
    expect(md).toContain('## Dead links — removed with apply (3)');
  });

  it('apply removes dead links and merges tags, and deletes no card', async () => {
    const cards = async () => (await brain().admin.query<{ slug: string }>('SELECT slug FROM homelab.topics ORDER BY slug')).map((r) => r.slug);
    const before = await cards();
    const r = await lint(homelab, { apply: { deadLinks: true, mergeTags: true } });
    expect(r.applied).toMatchObject({ deadLinksRemoved: 3, tagsMerged: 2 });
    expect(await cards()).toEqual(before);
    const after = await lint(homelab);
    expect(after.deadLinks).toEqual([]);
    expect(after.duplicateTags).toEqual([]);
    expect(after.orphans.map((o) => o.slug)).toEqual(['env/orphan']);
    const tags = await brain().admin.query<{ tag: string; n: number }>('SELECT tag, count(*)::int AS n FROM homelab.topic_tags GROUP BY tag');
    expect(tags).toHaveLength(1);
    expect(tags[0]!.n).toBe(2);
    expect(await brain().admin.query("SELECT 1 FROM homelab.links WHERE to_slug = 'env/nas'")).toHaveLength(1);
    expect((await brain().admin.query("SELECT reason FROM homelab.outbox WHERE table_name = 'links' AND operation = 'DELETE' AND app_operation = 'lint'")).length).toBe(3);
  });
});
