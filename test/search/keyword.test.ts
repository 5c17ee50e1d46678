// Full-text search on both databases: any-word semantics for questions, strict phrases and
// exclusions, snippets, episodes, filters, subject labels, and the language switch.
import { beforeAll, expect, it } from 'vitest';
import { createTopic, recordEpisode, tagTopic, type BrainContext } from '../../services/knowledge/index.js';
import { estimateTokens, renderSearchAnswer, search, setTextSearchConfig } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOnBothDatabases('keyword search', (brain, target) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, {
      slug: 'svc/backups',
      kind: 'environment',
      title: 'Nightly database backups',
      summary: 'pgBackRest writes a full backup on Sundays and incrementals every night.',
      body: 'The repository lives on the NAS. Restore with pgbackrest restore --delta after stopping the cluster.',
      tags: ['storage'],
    });
    await createTopic(homelab, {
      slug: 'svc/proxy',
      kind: 'environment',
      title: 'Reverse proxy',
      summary: 'Caddy terminates TLS for every internal service.',
      body: 'Certificates renew automatically. The proxy reloads without dropping connections.',
    });
    await createTopic(homelab, {
      slug: 'tool/flurble',
      kind: 'tool',
      title: 'Flurble',
      body: 'A made-up daemon that keeps the power supply quiet. Its config is in /etc/flurble.',
    });
    await createTopic(homelab, {
      slug: 'concept/cold-storage',
      kind: 'concept',
      title: 'Cold storage',
      body: 'Archive disks are kept offline. A full backup is copied there every month.',
    });
    await recordEpisode(homelab, {
      kind: 'incident',
      occurredAt: '2026-11-02',
      title: 'Power cut corrupted the NAS share',
      detail: 'After the outage the share would not mount; fsck fixed it and nothing was lost.',
    });
  });

  it('answers a natural-language question whose words are not all on any card (any-word)', async () => {
    // With a limit, every hit of a question that is answered at all is shown (see the relevance tests).
    const r = await search(homelab, { query: 'how do I restore the nightly backups after a disaster?', mode: 'keyword', limit: 10 });
    expect(r.mode).toBe('keyword');
    expect(r.hits[0]).toMatchObject({ subject: 'homelab', slug: 'svc/backups', matchedBy: 'keyword', type: 'topic' });
    // Cards sharing fewer of the words still come, ranked lower.
    expect(r.hits.map((h) => h.slug)).toContain('concept/cold-storage');
    expect(r.hits.map((h) => h.slug)).not.toContain('svc/proxy');
  });

  it('a question naming a card by its title is answered, however many other words it has', async () => {
    const r = await search(homelab, { query: 'what was that weird thing called flurble again, and why should anyone care?', mode: 'keyword' });
    expect(r.hits.map((h) => h.slug)).toEqual(['tool/flurble']);
    expect(r.hits[0]!.relevance).toBeGreaterThanOrEqual(0.5);
    // "would" is not an English stop word: the incident that says it matches too, ranked below
    // (shown with a limit; without one the answer stops where relevance drops).
    const would = await search(homelab, { query: 'what was that flurble thing, would you remind me?', mode: 'keyword', limit: 10 });
    expect(would.hits.map((h) => h.slug ?? h.type)).toEqual(['tool/flurble', 'episode']);
    // A question sharing no content word with any card finds nothing (and says nothing false).
    expect((await search(homelab, { query: 'sourdough hydration ratios', mode: 'keyword' })).hits).toEqual([]);
  });

  it('keeps quoted phrases and -exclusions strict', async () => {
    const phrase = await search(homelab, { query: '"full backup on Sundays"', mode: 'keyword' });
    expect(phrase.hits.map((h) => h.slug)).toEqual(['svc/backups']);
    // Both cards have "full" and "backup"; only one has them as that phrase.
    const loose = await search(homelab, { query: 'full backup', mode: 'keyword' });
    expect(loose.hits.map((h) => h.slug)).toEqual(expect.arrayContaining(['svc/backups', 'concept/cold-storage']));
    const excluded = await search(homelab, { query: 'full backup -NAS', mode: 'keyword' });
    expect(excluded.hits.map((h) => h.slug)).toEqual(['concept/cold-storage']);
    const excludedPhrase = await search(homelab, { query: 'backup -"every month"', mode: 'keyword' });
    expect(excludedPhrase.hits.map((h) => h.slug)).toEqual(['svc/backups']);
    // A phrase plus loose words: the phrase is required, the words only rank.
    const mixed = await search(homelab, { query: '"Caddy terminates" backups', mode: 'keyword' });
    expect(mixed.hits.map((h) => h.slug)).toEqual(['svc/proxy']);
  });

  it('returns snippets with the matched words marked', async () => {
    const r = await search(homelab, { query: 'restore delta', mode: 'keyword' });
    const hit = r.hits.find((h) => h.slug === 'svc/backups')!;
    expect(hit.snippet).toMatch(/\*\*restore\*\*/i);
    expect(hit.snippet).toMatch(/\*\*delta\*\*/i);
    expect(hit.snippet.length).toBeLessThan(400);
  });

  it('finds episodes too, unless asked not to, and applies kind, tag and date filters', async () => {
    const r = await search(homelab, { query: 'power outage on the NAS', mode: 'keyword' });
    const episode = r.hits.find((h) => h.type === 'episode')!;
    expect(episode).toMatchObject({ subject: 'homelab', slug: null, kind: 'incident', title: 'Power cut corrupted the NAS share', occurredAt: '2026-11-02T00:00:00Z' });
    expect((await search(homelab, { query: 'power outage on the NAS', mode: 'keyword', includeEpisodes: false })).hits.every((h) => h.type === 'topic')).toBe(true);
    expect((await search(homelab, { query: 'backup', mode: 'keyword', kinds: ['concept'] })).hits.map((h) => h.slug)).toEqual(['concept/cold-storage']);
    expect((await search(homelab, { query: 'backup', mode: 'keyword', tags: ['storage'] })).hits.map((h) => h.slug)).toEqual(['svc/backups']);
    expect((await search(homelab, { query: 'NAS', mode: 'keyword', since: '2026-11-01', until: '2026-11-03' })).hits.map((h) => h.type)).toContain('episode');
    expect((await search(homelab, { query: 'NAS', mode: 'keyword', since: '2099-01-01' })).hits).toEqual([]);
    await tagTopic(homelab, { slug: 'concept/cold-storage', tags: ['storage'] });
    expect((await search(homelab, { query: 'backup', mode: 'keyword', tags: ['storage'] })).hits.map((h) => h.slug).sort()).toEqual(['concept/cold-storage', 'svc/backups']);
  });

  it('trims hits to a token budget', async () => {
    const all = await search(homelab, { query: 'backup NAS proxy flurble storage', mode: 'keyword', limit: 10 });
    expect(all.hits.length).toBeGreaterThan(2);
    const untrimmed = estimateTokens(renderSearchAnswer(all));
    // The budget is the whole answer the model reads: header, hits and notes.
    const budget = Math.floor(untrimmed / 2);
    const tight = await search(homelab, { query: 'backup NAS proxy flurble storage', mode: 'keyword', limit: 10, budgetTokens: budget });
    expect(tight.hits.length).toBeGreaterThan(0);
    expect(tight.hits.length).toBeLessThan(all.hits.length);
    expect(estimateTokens(renderSearchAnswer(tight))).toBeLessThanOrEqual(budget);
    expect(tight.omittedForBudget).toBe(all.hits.length - tight.hits.length);
    // The best hits are kept, in order.
    expect(tight.hits.map((h) => h.id)).toEqual(all.hits.slice(0, tight.hits.length).map((h) => h.id));
  });

  it('falls back to keyword results with a warning when semantic search cannot run, never an error', async () => {
    const r = await search(homelab, { query: 'nightly backups', mode: 'semantic' });
    expect(r.mode).toBe('keyword');
    expect(r.hits[0]?.slug).toBe('svc/backups');
    // Debian's Postgres has no pgvector unless someone built it; PGlite always has it.
    const vector = await brain().admin.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    expect(r.warnings.join(' ')).toMatch(vector.length === 0 ? /pgvector is not installed/ : /no embedder is configured/);
    if (target === 'pglite') expect(vector.length).toBe(1);
  });

  it('switches the text-search language with one settings update and a reindex', async () => {
    // English stems "running" to "run"; 'simple' does not stem at all.
    await createTopic(homelab, { slug: 'note/running', kind: 'concept', title: 'Running services', body: 'Services keep running.' });
    expect((await search(homelab, { query: 'run', mode: 'keyword' })).hits.map((h) => h.slug)).toContain('note/running');
    const names = brain().config.subjects.map((s) => s.name);
    try {
      const report = await setTextSearchConfig(brain().admin, 'simple', names);
      expect(report).toMatchObject({ config: 'simple', previous: 'english' });
      expect(report.reindexed.find((s) => s.subject === 'homelab')!.topics).toBeGreaterThanOrEqual(5);
      expect((await search(homelab, { query: 'run', mode: 'keyword' })).hits.map((h) => h.slug)).not.toContain('note/running');
      expect((await search(homelab, { query: 'running', mode: 'keyword' })).hits.map((h) => h.slug)).toContain('note/running');
      // The reindex is not an edit: no versions, no audit rows.
      const [v] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.versions WHERE row_data->>'slug' = 'note/running'");
      expect(v!.n).toBe(0);
      await expect(setTextSearchConfig(brain().admin, 'no_such_language', names)).rejects.toThrow();
    } finally {
      await setTextSearchConfig(brain().admin, 'english', names);
    }
    expect((await search(homelab, { query: 'run', mode: 'keyword' })).hits.map((h) => h.slug)).toContain('note/running');
  });
});
