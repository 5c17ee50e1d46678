// With the offline embedder (USE-lite, no network) on the embedded brain: a paraphrase that
// shares no word with its card is found by meaning where keyword search cannot find it,
// hybrid keeps it, and packed context respects its token budget.
import { beforeAll, expect, it } from 'vitest';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedStale, estimateTokens, packContext, search } from '../../services/search/index.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const CARDS = [
  { slug: 'food/sourdough-starter', kind: 'methodology', title: 'Sourdough starter care', body: 'Feed the levain with flour and water daily; keep it in the fridge between bakes and discard half before each feeding.' },
  { slug: 'svc/backups', kind: 'environment', title: 'Nightly database backups', body: 'pgBackRest writes incrementals to the NAS every night; a full backup runs on Sundays.' },
  { slug: 'svc/proxy', kind: 'environment', title: 'Reverse proxy', body: 'Caddy terminates TLS for internal services and renews certificates automatically.' },
  { slug: 'people/ada', kind: 'person', title: 'Ada, the landlord', body: 'Ada owns the flat; rent is due on the first of the month and she prefers e-mail over calls.' },
  { slug: 'tool/tmux', kind: 'tool', title: 'tmux', body: 'Terminal multiplexer: detach sessions with prefix d, split panes with prefix % and prefix ".' },
  {
    slug: 'concept/raid',
    kind: 'concept',
    title: 'RAID levels',
    body: 'RAID 1 mirrors two disks. RAID 5 stripes with parity across three or more.\n\n## Rebuilds\n\nA rebuild reads every sector of the surviving disks, so a second failure during it loses the array.',
  },
];

describeOn('pglite', 'semantic search with the offline embedder', (brain) => {
  const embedder = new OfflineEmbedder();
  let ctx: BrainContext;
  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    for (const c of CARDS) await createTopic(ctx, c);
    const done = await embedStale(ctx, embedder);
    expect(done).toMatchObject({ embedded: CARDS.length, pending: 0, model: 'use-lite-512' });
  });

  it('finds a card by meaning when the question shares no word with it', async () => {
    const query = 'how should I look after the yeast culture for my bread?';
    const keyword = await search(ctx, { query, mode: 'keyword' });
    expect(keyword.hits.map((h) => h.slug)).not.toContain('food/sourdough-starter');
    const semantic = await search(ctx, { query, mode: 'semantic' }, { embedder });
    expect(semantic.hits[0]).toMatchObject({ slug: 'food/sourdough-starter', matchedBy: 'vector' });
    const hybrid = await search(ctx, { query }, { embedder });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits[0]).toMatchObject({ slug: 'food/sourdough-starter', matchedBy: 'vector' });
    // The snippet of a hit found by meaning is its nearest passage, without the title line.
    expect(hybrid.hits[0]!.snippet).toMatch(/^Feed the levain/);
  });

  it('marks cards both lists found as both, and ranks them first', async () => {
    const r = await search(ctx, { query: 'when do the database backups run?' }, { embedder });
    expect(r.hits[0]).toMatchObject({ slug: 'svc/backups', matchedBy: 'both' });
  });

  it('packs the best passages into a token budget', async () => {
    for (const budget of [40, 90, 400]) {
      const packed = await packContext(ctx, { query: 'what happens when a disk fails during a rebuild?', budgetTokens: budget }, { embedder });
      expect(packed.usedTokens).toBeLessThanOrEqual(budget);
      expect(estimateTokens(packed.text)).toBe(packed.usedTokens);
      expect(packed.items.length).toBeGreaterThan(0);
      expect(packed.items[0]).toMatchObject({ slug: 'concept/raid', kind: 'concept', subject: 'homelab' });
      // The nearest chunk is the Rebuilds section, not the opening.
      expect(packed.items[0]!.passage).toMatch(/rebuild/i);
      expect(packed.text).toContain('(concept · homelab:concept/raid)');
      if (budget === 40) expect(packed.items[0]!.truncated || packed.items.length === 1).toBe(true);
      if (budget === 400) expect(packed.items.length).toBeGreaterThan(1);
    }
    const tiny = await packContext(ctx, { query: 'disk rebuild', budgetTokens: 5 }, { embedder });
    expect(tiny).toMatchObject({ items: [], text: '', usedTokens: 0 });
    expect(tiny.omitted).toBeGreaterThan(0);
  });
});
