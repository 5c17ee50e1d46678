// ANALYZE of chunks gathers statistics only where a plan uses them (migrations/subject/
// 0013_chunk_statistics.sql): the cards' ids, the model, dims, chunk_index. The text, the heading,
// the content hash, the vector and created_at are skipped, and so is each HNSW index's expression,
// whose evaluation read every sampled vector from TOAST (at 42,697 chunks ANALYZE took 370 ms warm
// with them, 140-150 without, on the embedded brain's only thread). On both databases, the server
// where it has pgvector.
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedStale, subjectsWithVectors } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const unit = (text: string, dims: number) => Array.from({ length: dims }, (_, i) => Math.cos(text.length + i));
const embedderOf = (dims: number): Embedder => ({
  model: `stats-${dims}`,
  dimensions: dims,
  embedDocuments: async (texts) => texts.map((t) => unit(t, dims)),
  embedQuery: async (t) => unit(t, dims),
  health: async () => ({ ok: true }),
});

describeOnBothDatabases('statistics of chunks', (brain) => {
  let ctx: BrainContext;
  let hasVectors = false;

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    hasVectors = (await subjectsWithVectors(ctx.db, ['homelab'])).length === 1;
    if (!hasVectors) return;
    for (let i = 0; i < 20; i++) await createTopic(ctx, { slug: `stats/t-${i}`, kind: 'environment', title: `Stats ${i}`, body: `## Part\n\nCard ${i} has text, a heading and a vector.` });
    // Chunks under both HNSW indexes (768 and 512 dimensions).
    expect(await embedStale(ctx, embedderOf(768))).toMatchObject({ embedded: 20, pending: 0 });
    expect(await embedStale(ctx, embedderOf(512))).toMatchObject({ embedded: 20, pending: 0 });
    await brain().admin.exec('ANALYZE homelab.chunks');
  });

  it('keeps the columns plans estimate with, and nothing else', async (t) => {
    if (!hasVectors) t.skip();
    const rows = await brain().admin.query<{ attname: string }>(`SELECT attname FROM pg_stats WHERE schemaname = 'homelab' AND tablename = 'chunks' ORDER BY attname`);
    expect(rows.map((r) => r.attname)).toEqual(['chunk_index', 'dims', 'episode_id', 'id', 'model', 'topic_id']);
  });

  it('does not evaluate the HNSW indexes’ expressions', async (t) => {
    if (!hasVectors) t.skip();
    const indexes = await brain().admin.query<{ name: string }>(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'homelab.chunks'::regclass AND indexprs IS NOT NULL ORDER BY 1`);
    expect(indexes.map((r) => r.name)).toEqual(['homelab.chunks_hnsw_512', 'homelab.chunks_hnsw_768']);
    const stats = await brain().admin.query<{ n: number | string }>(`SELECT count(*) AS n FROM pg_stats WHERE schemaname = 'homelab' AND tablename IN ('chunks_hnsw_512', 'chunks_hnsw_768')`);
    expect(Number(stats[0]!.n)).toBe(0);
  });
});
