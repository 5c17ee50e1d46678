// Every page of the web view, through fastify's inject, over a seeded brain on both databases:
// what each shows, checked against the database; escaping; the HTTP rules.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { seedBrain, SEEDED } from './seed.js';
import { viewFor, type ViewUnderTest } from './view-support.js';
import { CONTENT_SECURITY_POLICY } from '../../services/view/security.js';
import { createTopic } from '../../services/knowledge/index.js';
import { archiveTopic } from '../../services/knowledge/archive.js';
import { BackgroundFigures, type Dated } from '../../services/view/background.js';
import { HEALTH_LINT_MAX_AGE_MS, healthData, renderHealth } from '../../services/view/pages/health.js';
import type { LintReport } from '../../services/curation/lint.js';
import { contextFor } from '../support/knowledge.js';

describeOnBothDatabases('web view pages', (brain) => {
  let v: ViewUnderTest;
  const get = (url: string, headers: Record<string, string> = {}) => v.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:7400', ...headers } });

  beforeAll(async () => {
    await seedBrain(brain());
    v = await viewFor(brain());
  });
  afterAll(async () => {
    await v?.close();
  });

  it('the overview shows each subject with its counts from the database, and the activity chart', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    for (const s of brain().config.subjects) {
      const [row] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${s.name}.topics WHERE archived_at IS NULL`);
      expect(res.body).toContain(`data-subject="${s.name}"`);
      const card = res.body.slice(res.body.indexOf(`data-subject="${s.name}"`));
      expect(card).toMatch(new RegExp(`<dd class="cards-count">${row!.n}</dd>`));
    }
    expect(res.body).toContain('<svg class="activity"');
    const polylines = res.body.match(/<polyline class="series" data-subject="[a-z]+"/g) ?? [];
    expect(polylines.length).toBe(brain().config.subjects.length);
  });

  it('the subject browser lists, filters by kind and tag, and searches', async () => {
    const all = await get('/s/homelab');
    expect(all.statusCode).toBe(200);
    const [n] = await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.topics WHERE archived_at IS NULL');
    expect((all.body.match(/<a href="\/s\/homelab\/card\//g) ?? []).length).toBe(n!.n);
    const tools = await get('/s/homelab?kind=tool');
    expect(tools.body).toContain(SEEDED.restic);
    expect(tools.body).not.toContain(SEEDED.nas);
    const tagged = await get('/s/homelab?tag=storage');
    expect(tagged.body).toContain(SEEDED.nas);
    expect(tagged.body).not.toContain(SEEDED.restic);
    const found = await get('/s/homelab?q=restic');
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain(`/s/homelab/card/${SEEDED.restic}`);
  });

  it('a card page shows the body as markdown, its timeline, links, backlinks, sources, tags and history', async () => {
    const res = await get(`/s/homelab/card/${SEEDED.nas}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('The NAS (Synology)');
    expect(res.body).toContain('<p>Runs backups nightly at 03:00 now.</p>');
    expect(res.body).toContain('NAS disk failed');
    expect(res.body).toContain('https://example.org/nas-manual');
    expect(res.body).toContain('<q>Four bays.</q>');
    expect(res.body).toContain('<svg class="links"');
    expect(res.body).toContain(`/s/homelab/card/${SEEDED.restic}`);
    expect(res.body).toContain('storage');
    const [versions] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.versions WHERE entity = 'topic' AND entity_id = (SELECT id FROM homelab.topics WHERE slug = $1)", [SEEDED.nas]);
    expect(versions!.n).toBe(2);
    for (const k of [1, 2, 3]) expect(res.body).toContain(`/s/homelab/history/${SEEDED.nas}?v=${k}`);
    const restic = await get(`/s/homelab/card/${SEEDED.restic}`);
    expect(restic.body).toContain(`/s/homelab/card/${SEEDED.nas}`); // the backlink
  });

  it('the history page shows each version with its diff', async () => {
    const all = await get(`/s/homelab/history/${SEEDED.nas}`);
    expect(all.statusCode).toBe(200);
    expect((all.body.match(/<section class="version"/g) ?? []).length).toBe(3);
    const v3 = await get(`/s/homelab/history/${SEEDED.nas}?v=3`);
    expect(v3.body).toContain('+ Runs backups nightly at 03:00 now.');
    expect(v3.body).toContain('moved the window');
    expect((await get(`/s/homelab/history/${SEEDED.nas}?v=9`)).statusCode).toBe(404);
  });

  it('a body holding <script> is escaped, never markup', async () => {
    const res = await get(`/s/homelab/card/${SEEDED.script}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;script&gt;window.__pwned = true;');
  });

  it('the health page shows duplicate clusters, a contradiction, orphans, dead links and quiet subjects', async () => {
    const res = await get('/health');
    expect(res.statusCode).toBe(200);
    const homelab = res.body.slice(res.body.indexOf('data-subject="homelab"'), res.body.indexOf('data-subject="novel"'));
    expect(homelab).toMatch(/Duplicate clusters \(1\)/);
    expect(homelab).toContain(SEEDED.dupA);
    expect(homelab).toContain(SEEDED.dupB);
    expect(homelab).toMatch(/Contradiction candidates \([1-9]\d*\)/);
    expect(homelab).toContain('port 8000');
    expect(homelab).toContain(SEEDED.orphan);
    expect(homelab).toContain(`homelab:${SEEDED.gone}`);
    // "book" was never written: quiet.
    expect(res.body).toMatch(/<ul class="quiet"><li>book: last write —/);
    expect(res.body).not.toContain('http-equiv="refresh"');
  });

  it('the health page waits a bounded time for a lint still running: it shows the last report or says so, and reloads itself', async () => {
    // A lint that never ends (as one over 100k cards seems to a page): no report yet.
    const endless = new BackgroundFigures<LintReport>(() => new Promise<LintReport>(() => undefined), true);
    const waiting = renderHealth(v.view, await healthData({ ...v.view, lint: endless }, new Date(), 50));
    expect(waiting).toContain('<meta http-equiv="refresh" content="30">');
    expect((waiting.match(/Lint is still running over this subject/g) ?? []).length).toBe(brain().config.subjects.length);
    // With a report from before: that one is shown, with its age, while the new one runs.
    const report = (await v.view.lint.fresh('homelab')).value;
    const again = new BackgroundFigures<LintReport>(() => new Promise<LintReport>(() => undefined), true);
    // Made two minutes ago (the only way in from outside is the private map).
    (again as unknown as { entries: Map<string, Dated<LintReport>> }).entries.set('homelab', { value: report, at: new Date(Date.now() - 2 * HEALTH_LINT_MAX_AGE_MS) });
    const stale = renderHealth(v.view, await healthData({ ...v.view, lint: again }, new Date(), 50));
    const homelab = stale.slice(stale.indexOf('data-subject="homelab"'), stale.indexOf('data-subject="novel"'));
    expect(homelab).toContain(SEEDED.dupA);
    expect(homelab).toContain('a new lint is running');
    expect(stale).toContain('http-equiv="refresh"');
  });

  it('the upcast audit lists writes into personal by a project, the reason-less one first', async () => {
    const res = await get('/upcasts');
    expect(res.statusCode).toBe(200);
    const rows = await brain().admin.query<{ flagged: boolean; reason: string | null }>('SELECT flagged, reason FROM personal.outbox WHERE is_upcast ORDER BY flagged DESC, id DESC');
    expect(rows.length).toBeGreaterThan(1);
    expect((res.body.match(/<tr class="(flagged)?">/g) ?? []).length).toBe(rows.length);
    expect(res.body.indexOf(SEEDED.reasonless)).toBeLessThan(res.body.indexOf(SEEDED.upcastReason));
    expect(res.body).toContain('⚑ no reason');
  });

  it('the outbox log filters by subject, operation and flagged writes', async () => {
    const all = await get('/outbox?subject=homelab&operation=DELETE');
    expect(all.statusCode).toBe(200);
    const [deletes] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.outbox WHERE operation = 'DELETE'");
    expect(deletes!.n).toBeGreaterThan(0);
    expect((all.body.match(/<td>DELETE<\/td>/g) ?? []).length).toBe(deletes!.n);
    const flagged = await get('/outbox?only=flagged');
    expect(flagged.body).toContain(SEEDED.reasonless);
    expect(flagged.body).not.toContain(SEEDED.nas);
    expect((await get('/outbox?operation=DROP')).statusCode).toBe(400);
  });

  it('the overview follows every write: its figures are reused only while the outbox is unchanged', async () => {
    const count = (body: string) => Number(/data-subject="homelab"[\s\S]*?<dd class="cards-count">(\d+)<\/dd>/.exec(body)![1]);
    const charted = (body: string) => Number(/Writes per week by subject: (\d+) writes/.exec(body)![1]);
    const cardWrites = async () => {
      let n = 0;
      for (const s of brain().config.subjects) {
        const [row] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${s.name}.outbox WHERE table_name IN ('topics', 'episodes') AND at >= now() - interval '20 weeks'`);
        n += row!.n;
      }
      return n;
    };
    const first = (await get('/')).body;
    const before = count(first);
    expect(charted(first)).toBe(await cardWrites());
    expect(count((await get('/')).body)).toBe(before);
    await createTopic(await contextFor(brain(), 'homelab'), { slug: 'concept/written-later', kind: 'concept', title: 'Written later' });
    const [n] = await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.topics WHERE archived_at IS NULL');
    expect(n!.n).toBe(before + 1);
    const after = (await get('/')).body;
    expect(count(after)).toBe(before + 1);
    // The chart added only the new rows to what it had counted: the same total as counting again.
    expect(charted(after)).toBe(await cardWrites());
    expect(charted(after)).toBeGreaterThan(charted(first));
    // Archived: the cards are counted again (an update, not an insert, of the card).
    await archiveTopic(await contextFor(brain(), 'homelab'), { slug: 'concept/written-later', reason: 'a test of the overview' });
    expect(count((await get('/')).body)).toBe(before);
  });

  it('answers 404 for an unknown subject or card, 403 for a foreign Host or Origin', async () => {
    expect((await get('/s/nope')).statusCode).toBe(404);
    expect((await get('/s/homelab/card/tool/nope')).statusCode).toBe(404);
    expect((await get('/', { host: 'evil.example' })).statusCode).toBe(403);
    expect((await get('/', { origin: 'http://evil.example' })).statusCode).toBe(403);
  });
});
