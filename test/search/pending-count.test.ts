// countPending counts in slices of ids (services/search/pending.ts), so that the embedded brain's
// one thread is never held for a whole count: at 955,000 cards that was 575-640 ms, during which
// searches and pings waited. The count must stay exact across slice boundaries, gaps in the ids,
// both tables and cards changed since they were embedded; and a statement asked for while the
// count runs goes before the count's next slice.
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic, recordEpisode, updateTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedPendingBatch } from '../../services/search/embed-cards.js';
import { COUNT_SLICE, countPending } from '../../services/search/pending.js';
import { subjectsWithVectors } from '../../services/search/vectors.js';
import { describeOn, describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const m = { model: 'scripted-4', dims: 4 };
const embedder: Embedder = {
  model: m.model,
  dimensions: m.dims,
  embedDocuments: async (texts) => texts.map((t) => [1, t.length % 7, 0.5, 0.25]),
  embedQuery: async () => [1, 0, 0, 0],
  health: async () => ({ ok: true }),
};

async function rows(ctx: BrainContext, table: 'topics' | 'episodes'): Promise<number> {
  const r = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(`homelab.${table}`)}`.execute(ctx.db);
  return Number(r.rows[0]!.n);
}

describeOnBothDatabases('the pending count, in slices', (brain) => {
  let ctx: BrainContext;
  let hasState = false;

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    for (let i = 0; i < 12; i++) await createTopic(ctx, { slug: `count/t-${i}`, kind: 'environment', title: `Topic ${i}`, body: `Topic ${i} of the count test.` });
    for (let i = 0; i < 40; i++) await recordEpisode(ctx, { kind: 'note', occurredAt: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`, title: `Episode ${i}` });
    // Gaps: a run of ten ids (longer than the small slices below) and every third id after it.
    const first = await sql<{ id: string }>`SELECT min(id) AS id FROM homelab.episodes`.execute(ctx.db);
    const lo = Number(first.rows[0]!.id);
    await sql`DELETE FROM homelab.episodes WHERE (id >= ${lo + 5} AND id < ${lo + 15}) OR (id >= ${lo + 15} AND (id - ${lo}) % 3 = 0)`.execute(ctx.db);
    hasState = (await subjectsWithVectors(ctx.db, ['homelab'])).length === 1;
  });

  it('is exact whatever the slice: both tables, gaps in the ids, a card changed since it was embedded', async (t) => {
    if (!hasState) t.skip(); // no pgvector here: nothing to count against
    const topics = await rows(ctx, 'topics');
    const episodes = await rows(ctx, 'episodes');
    expect([topics, episodes]).toEqual([12, 40 - 10 - 9]); // 10 in the run, 9 of the 25 after it
    expect(await countPending(ctx.db, 'homelab', m)).toBe(topics + episodes);
    // Five topics embedded (the batch takes topics first), then one of them changed.
    expect(await embedPendingBatch(ctx, embedder, { batchSize: 5 })).toMatchObject({ embedded: 5 });
    const embedded = await sql<{ slug: string }>`SELECT t.slug FROM homelab.topics t JOIN homelab.embedding_state es ON es.topic_id = t.id ORDER BY t.id LIMIT 1`.execute(ctx.db);
    await updateTopic(ctx, { slug: embedded.rows[0]!.slug, body: 'Changed after it was embedded.' });
    const expected = topics - 5 + 1 + episodes;
    for (const slice of [1, 2, 3, 7, 10, 1000, COUNT_SLICE]) expect({ slice, n: await countPending(ctx.db, 'homelab', m, slice) }).toEqual({ slice, n: expected });
    await expect(countPending(ctx.db, 'homelab', m, 0)).rejects.toThrow('slice must be a positive integer');
  });
});

describeOn('pglite', 'the pending count and the embedded brain’s one thread', (brain) => {
  it('lets a statement asked for while it counts go before its next slice', async (t) => {
    const ctx = await contextFor(brain(), 'homelab');
    const hasState = (await subjectsWithVectors(ctx.db, ['homelab'])).length === 1;
    if (!hasState) t.skip();
    for (let i = 0; i < 10; i++) await createTopic(ctx, { slug: `queue/t-${i}`, kind: 'environment', title: `Queued ${i}`, body: `Card ${i}.` });
    const order: string[] = [];
    let other: Promise<void> | undefined;
    let slices = 0;
    // The count's slice statements, seen as each is compiled: at the second, another statement is asked for.
    const db = ctx.db.withPlugin({
      transformQuery: (args) => {
        if (JSON.stringify(args.node).includes('SELECT (SELECT count(*) FROM') && ++slices === 2) {
          other = sql`SELECT 1`.execute(ctx.db).then(() => void order.push('other statement'));
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    expect(await countPending(db, 'homelab', m, 2)).toBe(10);
    order.push('count');
    await other;
    expect(slices).toBe(5); // ten topics, two ids a slice, no episodes
    expect(order).toEqual(['other statement', 'count']);
  });
});
