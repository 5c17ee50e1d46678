// Lint's embedding checks on PGlite (pgvector) with the offline embedder: near-duplicate
// cards by meaning, stale embeddings counted, and a re-queue the worker catches up from.
import { beforeAll, expect, it } from 'vitest';
import { lint } from '../../services/curation/lint.js';
import { embeddingLintHooks } from '../../services/curation/lint-hooks.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { createTopic, updateTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedStale } from '../../services/search/index.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOn('pglite', 'lint with embeddings', (brain) => {
  const embedder = new OfflineEmbedder();
  const hooks = embeddingLintHooks(embedder);
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'm/backups', kind: 'methodology', title: 'Nightly backups', body: 'Every night the database is dumped to the NAS.' });
    await createTopic(homelab, { slug: 'm/backup-routine', kind: 'methodology', title: 'Backup routine', body: 'Each night a dump of the database goes to the NAS.' });
    await createTopic(homelab, { slug: 'c/sourdough', kind: 'concept', title: 'Sourdough', body: 'Feed the starter daily with flour and water.' });
    await embedStale(homelab, embedder);
  }, 120_000);

  it('reports near-duplicates by meaning, not only by title', { timeout: 120_000 }, async () => {
    const r = await lint(homelab, {}, hooks);
    // Titles with no trigram in common enough: found by embedding, kept by the judgement.
    const pairs = r.duplicateTopics.filter((d) => d.cosine !== null).map((d) => [d.a, d.b].sort().join(' ~ '));
    expect(pairs).toContain('m/backup-routine ~ m/backups');
    expect(pairs.some((p) => p.includes('c/sourdough'))).toBe(false);
    expect(r.staleEmbeddings).toBe(0);
  });

  it('counts stale embeddings and re-queues them when asked', { timeout: 120_000 }, async () => {
    await updateTopic(homelab, { slug: 'c/sourdough', body: 'Feed the starter twice a day in summer.' });
    expect((await lint(homelab, {}, hooks)).staleEmbeddings).toBe(1);
    const r = await lint(homelab, { apply: { requeueEmbeddings: true } }, hooks);
    expect(r.applied.embeddingsRequeued).toBe(3);
    expect((await lint(homelab, {}, hooks)).staleEmbeddings).toBe(3);
    await embedStale(homelab, embedder);
    expect((await lint(homelab, {}, hooks)).staleEmbeddings).toBe(0);
  });
});
