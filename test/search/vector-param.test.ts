// Vectors go to the database as parameters in pgvector's binary form (vectorParam): the embed
// worker's chunk rows and the query's vector in the vector statement and the relevance evidence.
// On both databases (the server only where it has pgvector): every element is stored as the
// nearest float4 of what the embedder gave, dense values that the old seven-digit text form
// would have rounded; a card searched with its own vector is at distance 0, through the HNSW
// index of 768 dimensions; and a non-finite element is refused before anything is sent.
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedStale } from '../../services/search/index.js';
import { gatherEvidence } from '../../services/search/relevance.js';
import { cardKey } from '../../services/search/types.js';
import { subjectsWithVectors, vectorParam, vectorSearch } from '../../services/search/vectors.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const DIMS = 768;

/** Dense and awkward: every element has more significant digits than seven, some tiny, some large. */
function denseVector(text: string): number[] {
  let seed = 7;
  for (const ch of text) seed = (seed * 31 + ch.charCodeAt(0)) % 1_000_003;
  return Array.from({ length: DIMS }, (_, i) => {
    const x = Math.sin(seed + i * 1.618033988749895) / 3;
    return i % 97 === 0 ? x * 1e-9 : i % 89 === 0 ? x * 1e6 : x;
  });
}

const embedder: Embedder = {
  model: 'dense-768',
  dimensions: DIMS,
  async embedDocuments(texts) {
    return texts.map(denseVector);
  },
  async embedQuery(text) {
    return denseVector(text);
  },
  async health() {
    return { ok: true };
  },
};

const FILTERS = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: true, includeTopics: true };

describeOnBothDatabases('vectors sent in binary', (brain) => {
  let ctx: BrainContext;
  let hasVectors = false;
  let id = 0;
  const body = 'A dense vector of many digits.';
  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    hasVectors = (await subjectsWithVectors(ctx.db, ['homelab'])).length === 1;
    id = (await createTopic(ctx, { slug: 'concept/dense', kind: 'concept', title: 'Dense', body })).id;
    if (hasVectors) expect(await embedStale(ctx, embedder)).toMatchObject({ embedded: 1, pending: 0 });
  });

  it('stores every element as the nearest float4 of what the embedder gave', async (t) => {
    if (!hasVectors) t.skip();
    const { rows } = await sql<{ text: string; v: string }>`SELECT text, embedding::text AS v FROM homelab.chunks WHERE topic_id = ${id}`.execute(ctx.db);
    expect(rows.length).toBe(1);
    // pgvector prints each float4 in the fewest digits that name it: Math.fround reads it back exactly.
    const stored = rows[0]!.v.slice(1, -1).split(',').map(Number);
    const given = denseVector(rows[0]!.text);
    expect(stored.length).toBe(DIMS);
    const differing = stored.filter((x, i) => Math.fround(x) !== Math.fround(given[i]!));
    expect(differing).toEqual([]);
    // Seven significant digits, as the text form sent them, would have changed some of them.
    expect(given.filter((x) => Math.fround(Number(x.toPrecision(7))) !== Math.fround(x)).length).toBeGreaterThan(0);
  });

  it('finds the card at distance 0 with its own vector, and the evidence gives it cosine 1', async (t) => {
    if (!hasVectors) t.skip();
    const { rows } = await sql<{ text: string }>`SELECT text FROM homelab.chunks WHERE topic_id = ${id}`.execute(ctx.db);
    const v = denseVector(rows[0]!.text);
    const hits = await vectorSearch(ctx.db, ['homelab'], { embedding: v, model: embedder.model, dims: DIMS, chunkLimit: 10 }, FILTERS, 5);
    expect(hits.length).toBe(1);
    expect(hits[0]).toMatchObject({ entity: 'topic', id });
    expect(hits[0]!.distance).toBe(0);
    const ref = { subject: 'homelab', entity: 'topic' as const, id };
    const evidence = await gatherEvidence(ctx.db, [ref], { text: 'dense', subjectsWithVectors: ['homelab'], vector: { embedding: v, model: embedder.model, dims: DIMS } });
    expect(evidence.get(cardKey(ref))?.cosine).toBe(1);
  });

  it('refuses a vector with an element that is not a finite number, naming it', () => {
    const v = denseVector('x');
    v[5] = Number.NaN;
    expect(() => vectorParam(v)).toThrow(/element 5 is not a finite number/);
  });
});
