// One embedding batch is embedded in calls of EMBED_CALL_CHUNKS, two in flight, and written
// call by call in transactions of a few cards: an embedder failing half-way loses nothing (the
// cards written stay written, the others stay pending), a card deleted meanwhile is skipped,
// and every chunk row carries its own text's vector.
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { EMBED_CALL_CHUNKS, embedPendingBatch } from '../../services/search/embed-cards.js';
import { countPending } from '../../services/search/pending.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const vector = (text: string) => {
  const v = new Array<number>(8).fill(0);
  for (let i = 0; i < text.length; i++) v[i % 8]! += text.charCodeAt(i);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

/** Records each call's size; `before(call)` runs ahead of the answer and may throw. */
function scriptedEmbedder(before: (call: number) => void | Promise<void> = () => undefined): Embedder & { calls: number[] } {
  const calls: number[] = [];
  return {
    model: 'scripted-8',
    dimensions: 8,
    calls,
    async embedDocuments(texts) {
      calls.push(texts.length);
      await before(calls.length);
      return texts.map(vector);
    },
    async embedQuery(text) {
      return vector(text);
    },
    async health() {
      return { ok: true };
    },
  };
}

describeOn('pglite', 'an embedding batch, call by call', (brain) => {
  let ctx: BrainContext;
  const m = { model: 'scripted-8', dims: 8 };
  const CARDS = 150;

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    for (let i = 0; i < CARDS; i++) {
      await createTopic(ctx, { slug: `svc/card-${i}`, kind: 'environment', title: `Card ${i}`, body: `Service ${i} runs on host h${i % 13}.` });
    }
  });

  it('keeps what was written when the embedder fails half-way, and leaves the rest pending', async () => {
    const failing = scriptedEmbedder((call) => {
      if (call === 2) throw new Error('the embedder fell over');
    });
    await expect(embedPendingBatch(ctx, failing, { batchSize: CARDS })).rejects.toThrow('fell over');
    expect(failing.calls.slice(0, 2)).toEqual([EMBED_CALL_CHUNKS, EMBED_CALL_CHUNKS]); // one-chunk cards
    expect(await countPending(ctx.db, 'homelab', m)).toBe(CARDS - EMBED_CALL_CHUNKS);

    const ok = scriptedEmbedder();
    const r = await embedPendingBatch(ctx, ok, { batchSize: CARDS });
    expect(r).toMatchObject({ seen: CARDS - EMBED_CALL_CHUNKS, embedded: CARDS - EMBED_CALL_CHUNKS });
    expect(await countPending(ctx.db, 'homelab', m)).toBe(0);
  });

  it('writes one set of chunks per card, each row with its own text’s vector, and the state to match', async () => {
    const rows = await brain().admin.query<{ topic_id: number; text: string; embedding: string }>(
      "SELECT topic_id, text, embedding::text AS embedding FROM homelab.chunks WHERE model = 'scripted-8'",
    );
    expect(rows).toHaveLength(CARDS);
    expect(new Set(rows.map((r) => r.topic_id)).size).toBe(CARDS);
    for (const r of rows) {
      const stored = JSON.parse(r.embedding) as number[];
      vector(r.text).forEach((x, i) => expect(stored[i]).toBeCloseTo(x, 5));
    }
    const [state] = await brain().admin.query<{ n: number; chunks: number }>(
      "SELECT count(*)::int AS n, sum(chunk_count)::int AS chunks FROM homelab.embedding_state WHERE model = 'scripted-8'",
    );
    expect(state).toEqual({ n: CARDS, chunks: CARDS });
  });

  it('skips a card deleted while its vectors were being made', async () => {
    await brain().admin.query(`UPDATE homelab.topics SET body = body || ' Moved.', updated_at = now() WHERE slug IN ('svc/card-1', 'svc/card-2', 'svc/card-3')`);
    const deleting = scriptedEmbedder(async () => {
      await brain().admin.query(`DELETE FROM homelab.topics WHERE slug = 'svc/card-2'`);
    });
    const r = await embedPendingBatch(ctx, deleting, { batchSize: CARDS });
    expect(r).toMatchObject({ seen: 3, embedded: 2 });
    expect(await countPending(ctx.db, 'homelab', m)).toBe(0);
    const [left] = await brain().admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM homelab.chunks c JOIN homelab.topics t ON t.id = c.topic_id WHERE t.slug IN ('svc/card-1', 'svc/card-3') AND c.text LIKE '%Moved.%'",
    );
    expect(left!.n).toBe(2);
  });
});
