// How much one embedding batch may do: a card's embedded text is capped (a 10 MB card
// written by SQL gets at most ~200 chunks, not 9,000), and a batch stops at its chunk budget
// so one transaction (which in the embedded brain holds every subject's only connection)
// stays short. The cards left out stay pending and come in the next batch.
import { InsertQueryNode, TableNode, ValuesNode, type KyselyPlugin } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { BATCH_CHUNK_BUDGET, CHUNK_ROWS_PER_STATEMENT, embedPendingBatch } from '../../services/search/embed-cards.js';
import { countPending, EMBED_TEXT_LIMIT } from '../../services/search/pending.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

/** A cheap deterministic embedder that records every call's size. */
function countingEmbedder(): Embedder & { calls: number[] } {
  const calls: number[] = [];
  const vector = (text: string) => {
    const v = new Array<number>(8).fill(0);
    for (let i = 0; i < text.length; i++) v[i % 8]! += text.charCodeAt(i);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  return {
    model: 'counting-8',
    dimensions: 8,
    calls,
    async embedDocuments(texts) {
      calls.push(texts.length);
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

/**
 * What happens on this thread while a batch is written, in order: the row count of each INSERT
 * into a chunks table, 'turn' for each turn of the event loop (a setImmediate chain).
 */
function writeTrace(): { plugin: KyselyPlugin; events: (number | 'turn')[]; stop: () => void } {
  const events: (number | 'turn')[] = [];
  let running = true;
  const turn = () => {
    if (!running) return;
    if (events.at(-1) !== 'turn') events.push('turn');
    setImmediate(turn);
  };
  setImmediate(turn);
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      if (InsertQueryNode.is(node) && node.into && TableNode.is(node.into) && node.into.table.identifier.name === 'chunks') {
        events.push(node.values && ValuesNode.is(node.values) ? node.values.values.length : -1);
      }
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
  return { plugin, events, stop: () => (running = false) };
}

describeOn('pglite', 'embedding batches are bounded', (brain) => {
  let ctx: BrainContext;
  const huge = `${'The storage array hums along in the rack. '.repeat(25_000)}`; // 1 MB, five times the cap

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    // Written by SQL: remember and import refuse a body over 200,000 characters.
    await brain().admin.query(`INSERT INTO homelab.topics (slug, kind, title, body, updated_at) VALUES ('env/huge', 'environment', 'Huge card', $1, now() - interval '1 hour')`, [huge]);
    for (let i = 0; i < 12; i++) {
      await createTopic(ctx, { slug: `env/small-${i}`, kind: 'environment', title: `Small card ${i}`, body: `Paragraph one of card ${i}.\n\n${'Some words about it. '.repeat(120)}` });
    }
  });

  it('embeds small cards up to the chunk budget, then the huge card alone, capped', async () => {
    const embedder = countingEmbedder();
    const m = { model: embedder.model, dims: embedder.dimensions };
    expect(await countPending(ctx.db, 'homelab', m)).toBe(13);

    // The 12 small cards are the most recent: three chunks each, so a batch of 64 chunks takes 12 of them (36 chunks).
    const first = await embedPendingBatch(ctx, embedder, { batchSize: 16, chunkBudget: 64 });
    expect(first.seen).toBe(12);
    expect(first.chunks).toBeLessThanOrEqual(64);
    expect(await countPending(ctx.db, 'homelab', m)).toBe(1);

    // Each chunk row is an HNSW insert, in the embedded brain WebAssembly on this thread: the
    // huge card's rows go in statements of a few, with a turn of the event loop between two,
    // so /healthz and HTTP are answered while it is written (one statement of ~190 rows held
    // the thread for seconds under load).
    const trace = writeTrace();
    const second = await embedPendingBatch({ ...ctx, db: ctx.db.withPlugin(trace.plugin) }, embedder, { batchSize: 16 });
    trace.stop();
    expect(second).toMatchObject({ seen: 1, embedded: 1 });
    const rows = trace.events.filter((e): e is number => e !== 'turn');
    expect(rows).toHaveLength(Math.ceil(second.chunks / CHUNK_ROWS_PER_STATEMENT));
    expect(rows.reduce((a, b) => a + b, 0)).toBe(second.chunks);
    expect(Math.max(...rows)).toBeLessThanOrEqual(CHUNK_ROWS_PER_STATEMENT);
    // Between each two statements the trace holds a turn (consecutive turns are one entry).
    const at = trace.events.flatMap((e, i) => (e !== 'turn' ? [i] : []));
    const between = at.slice(1).map((i, k) => trace.events.slice(at[k]! + 1, i));
    expect(between).toHaveLength(rows.length - 1);
    expect(between.filter((events) => events.join() !== 'turn')).toEqual([]);
    expect(second.chunks).toBeLessThanOrEqual(BATCH_CHUNK_BUDGET);
    // 200,000 characters in chunks of at most 1,200 with 150 of overlap: about 190, never 9,000.
    expect(second.chunks).toBeGreaterThan(150);
    expect(second.chunks).toBeLessThanOrEqual(Math.ceil(EMBED_TEXT_LIMIT / 1000));
    const [row] = await brain().admin.query<{ n: number; chars: number }>(
      "SELECT count(*)::int AS n, sum(length(c.text))::int AS chars FROM homelab.chunks c JOIN homelab.topics t ON t.id = c.topic_id WHERE t.slug = 'env/huge'",
    );
    expect(row!.n).toBe(second.chunks);
    expect(row!.chars).toBeLessThan(EMBED_TEXT_LIMIT * 1.25); // overlap and title prefixes only
    expect(await countPending(ctx.db, 'homelab', m)).toBe(0);
    expect(embedder.calls).toEqual([first.chunks, second.chunks]);
  });

  it('keeps one card per batch when a single card is over the budget', async () => {
    const embedder = countingEmbedder();
    await brain().admin.query(`UPDATE homelab.topics SET body = 'Intro. ' || body, updated_at = now() WHERE slug IN ('env/huge', 'env/small-0')`);
    const r = await embedPendingBatch(ctx, embedder, { batchSize: 16, chunkBudget: 10 });
    expect(r.seen).toBe(1);
    const rest = await embedPendingBatch(ctx, embedder, { batchSize: 16, chunkBudget: 10 });
    expect(rest.seen).toBe(1);
    expect(embedder.calls).toHaveLength(2);
  });

  it('does not re-embed a card whose change lies past the embedded text', async () => {
    const embedder = countingEmbedder();
    await brain().admin.query(`UPDATE homelab.topics SET body = body || ' The end.', updated_at = now() WHERE slug = 'env/huge'`);
    const r = await embedPendingBatch(ctx, embedder, { batchSize: 16 });
    expect(r).toMatchObject({ seen: 1, unchanged: 1, embedded: 0, chunks: 0 });
    expect(embedder.calls).toEqual([]);
  });
});
