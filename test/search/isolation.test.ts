// Search reaches exactly what the subject's role may read: a project its own schema and
// personal, each hit labelled; personal only personal; never another project, whatever
// filters are passed. Checked on both databases, through each subject's own role.
// (minRelevance: 0: every hit the roles let through, not only those relevant enough to show.)
import { beforeAll, expect, it } from 'vitest';
import { BrainError, createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { remember, search } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOnBothDatabases('search isolation', (brain) => {
  const ctx: Record<string, BrainContext> = {};
  beforeAll(async () => {
    for (const s of ['personal', 'homelab', 'novel', 'book']) ctx[s] = await contextFor(brain(), s);
    // The same words everywhere, so only the grants decide what comes back.
    await createTopic(ctx.personal!, { slug: 'method/lighthouse', kind: 'methodology', title: 'Lighthouse keeping checklist', body: 'Shared lighthouse lamp routine.' });
    await createTopic(ctx.homelab!, { slug: 'svc/lighthouse', kind: 'environment', title: 'Lighthouse monitoring host', body: 'The lighthouse lamp of the homelab: uptime checks.' });
    await createTopic(ctx.novel!, { slug: 'place/lighthouse', kind: 'location', title: 'The lighthouse on the cliff', body: 'Where Mara grew up; the lamp never goes out.' });
  });

  it('a project finds its own cards and personal ones, each labelled with its subject', async () => {
    const r = await search(ctx.homelab!, { minRelevance: 0, query: 'lighthouse lamp' });
    expect(r.hits.map((h) => `${h.subject}:${h.slug}`).sort()).toEqual(['homelab:svc/lighthouse', 'personal:method/lighthouse']);
  });

  it('personal finds only personal cards', async () => {
    const r = await search(ctx.personal!, { minRelevance: 0, query: 'lighthouse lamp' });
    expect(r.hits.map((h) => `${h.subject}:${h.slug}`)).toEqual(['personal:method/lighthouse']);
  });

  it('no filter widens a project search to another project', async () => {
    const novel = await search(ctx.novel!, { minRelevance: 0, query: 'lighthouse lamp cliff Mara', kinds: ['location', 'environment', 'methodology'] });
    expect(novel.hits.map((h) => h.subject).sort()).toEqual(['novel', 'personal']);
    for (const subject of ['homelab', 'book', 'brain', 'public']) {
      const error = await search(ctx.novel!, { query: 'lighthouse', subject }).catch((e: unknown) => e);
      expect(error, subject).toBeInstanceOf(BrainError);
      expect((error as BrainError).code).toBe('forbidden');
    }
    // The personal brain cannot name a project either.
    const fromPersonal = await search(ctx.personal!, { query: 'lighthouse', subject: 'homelab' }).catch((e: unknown) => e);
    expect((fromPersonal as BrainError).code).toBe('forbidden');
    // Naming personal narrows to personal.
    expect((await search(ctx.novel!, { minRelevance: 0, query: 'lighthouse', subject: 'personal' })).hits.map((h) => h.subject)).toEqual(['personal']);
  });

  it('search before add never weighs or links another project\'s cards', async () => {
    const r = await remember(ctx.book!, { kind: 'location', title: 'The lighthouse on the cliff', body: 'Where Mara grew up; the lamp never goes out.'});
    // novel's card has this very title and would be a confident match (an update) if book could see it;
    // personal's shares words with it, so the weighing had something to weigh.
    expect(r.action).toBe('created-linked');
    expect(r.candidates.map((c) => `${c.subject}:${c.slug}`)).toContain('personal:method/lighthouse');
    expect(r.candidates.filter((c) => c.subject !== 'book' && c.subject !== 'personal')).toEqual([]);
    expect(r.linkedTo).toEqual([{ subject: 'personal', slug: 'method/lighthouse' }]);
  });
});
