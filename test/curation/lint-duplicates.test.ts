// Lint finds near-duplicate cards in batches (a trigram join in memory checked by the
// database; nearest neighbours through the HNSW index) instead of one all-pairs self-join.
// On a seeded subject of about 1,200 cards (a fifth of them variations of another card, and
// groups of identical cards larger than the neighbours asked of the index), the pairs must be
// exactly those of the old all-pairs queries, which are kept here verbatim as the definition.
import { beforeAll, expect, it } from 'vitest';
import { seedLintSubject, SEED_EMBEDDER } from '../../bench/lint/seed.js';
import { createLintRun } from '../../services/curation/lint-batches.js';
import { CANDIDATE_COSINE, embeddingLintHooks, NEIGHBOURS, similarEmbeddings } from '../../services/curation/lint-hooks.js';
import { judgeDuplicates } from '../../services/curation/lint-judgement.js';
import { lint } from '../../services/curation/lint.js';
import { similarTitles, type SimilarPair } from '../../services/curation/similar-titles.js';
import type { BrainContext } from '../../services/knowledge/index.js';
import { describeOn, describeOnBothDatabases } from '../support/both-databases.js';
import type { BrainUnderTest } from '../support/brains.js';
import { contextFor } from '../support/knowledge.js';

const CARDS = 1_200;
// Two groups of identical cards, each card with more identical neighbours than NEIGHBOURS.
const CLUSTERS: [number, number] = [2, NEIGHBOURS + 4];

type RefPair = SimilarPair & { raw: number };
const INTERNATIONAL = [
  'Café résumé naïve',
  'Café résumé naive',
  'Straße über Brücken',
  'Strasse über Brücken',
  '東京 サーバー 設定',
  '東京 サーバー 設定 メモ',
  'Ελληνικά σημειώσεις',
  'Ελληνικές σημειώσεις',
  '!!! ???',
  '— … —',
  '🚀 rocket launch 🚀',
  '🚀 rocket launches',
];
const key = (p: SimilarPair) => `${p.a} ~ ${p.b} ${p.similarity}`;

/**
 * The old lint query for titles, without its LIMIT: every pair, by the database. Run once at
 * the lowest threshold with pg_trgm's own (float4) similarity alongside, which the higher
 * thresholds are applied to as Postgres compares them (real >= real).
 */
async function allPairsByTitle(brain: BrainUnderTest, threshold: number): Promise<RefPair[]> {
  const rows = await brain.admin.query<RefPair>(
    `SELECT a.slug AS a, b.slug AS b, round(brain_ext.similarity(lower(a.title), lower(b.title))::numeric, 2)::float AS similarity,
            brain_ext.similarity(lower(a.title), lower(b.title))::float8 AS raw
       FROM homelab.topics a JOIN homelab.topics b ON a.id < b.id
      WHERE brain_ext.similarity(lower(a.title), lower(b.title)) >= $1`,
    [threshold],
  );
  return rows.map((r) => ({ ...r, raw: Number(r.raw) }));
}
const atLeast = (pairs: RefPair[], threshold: number) => pairs.filter((p) => p.raw >= Math.fround(threshold)).map(key).sort();

/** The old lint query for embeddings (lint-hooks.ts), without its LIMIT. */
async function allPairsByEmbedding(brain: BrainUnderTest, model: string, dims: number, threshold: number): Promise<string[]> {
  const rows = await brain.admin.query<SimilarPair>(
    `SELECT ta.slug AS a, tb.slug AS b, round((1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::numeric, 2)::float AS similarity
       FROM homelab.chunks ca JOIN homelab.chunks cb ON ca.topic_id < cb.topic_id AND cb.chunk_index = 0 AND cb.model = ca.model
       JOIN homelab.topics ta ON ta.id = ca.topic_id JOIN homelab.topics tb ON tb.id = cb.topic_id
      WHERE ca.chunk_index = 0 AND ca.model = $1 AND ca.dims = $2
        AND 1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding) >= $3`,
    [model, dims, threshold],
  );
  return rows.map(key).sort();
}

describeOnBothDatabases('lint near-duplicate titles: the same pairs as the all-pairs join', (brain) => {
  let homelab: BrainContext;
  let reference: RefPair[];
  beforeAll(async () => {
    const seeded = await seedLintSubject(brain().admin, 'homelab', { topics: CARDS, clusters: CLUSTERS });
    expect(seeded.topics).toBe(CARDS + CLUSTERS[0] * CLUSTERS[1]);
    // Titles whose trigrams pg_trgm keeps as hashed multibyte codes, and ones with none at all.
    await brain().admin.query(`INSERT INTO homelab.topics (slug, kind, title) SELECT 'intl/' || i, 'concept', t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i)`, [INTERNATIONAL]);
    homelab = await contextFor(brain(), 'homelab');
    reference = await allPairsByTitle(brain(), 0.3);
    expect(reference.filter((p) => p.a.startsWith('intl/') && p.b.startsWith('intl/')).length).toBeGreaterThanOrEqual(3);
  }, 300_000);

  for (const threshold of [0.6, 0.3, 0.45, 1]) {
    it(`at similarity ${threshold}`, { timeout: 300_000 }, async () => {
      const expected = atLeast(reference, threshold);
      // Enough pairs to mean something, and the identical groups among them.
      const clusterPairs = CLUSTERS[0] * ((CLUSTERS[1] * (CLUSTERS[1] - 1)) / 2);
      expect(expected.length).toBeGreaterThan(threshold === 1 ? clusterPairs - 1 : 150);
      const got = await similarTitles(createLintRun(homelab), threshold);
      expect(got).not.toBeNull();
      expect(got!.map(key).sort()).toEqual(expected);
      // Best first, as the report lists them.
      expect(got!.map((p) => p.similarity)).toEqual([...got!.map((p) => p.similarity)].sort((x, y) => y - x));
    });
  }

  it('the report weighs these pairs and lists the `limit` most likely duplicates', { timeout: 300_000 }, async () => {
    const candidates = new Map(reference.map((p) => [`${p.a} ~ ${p.b}`, p.similarity]));
    const r = await lint(homelab, { limit: 40 });
    expect(r.duplicateTopics).toHaveLength(40);
    for (const d of r.duplicateTopics) {
      expect(d.by).toBe('title');
      expect(d.titleSimilarity).toBe(candidates.get(`${d.a} ~ ${d.b}`));
      expect(['same', 'possible-duplicate']).toContain(d.verdict);
    }
    expect(r.duplicateTopics.map((d) => d.score)).toEqual([...r.duplicateTopics.map((d) => d.score)].sort((x, y) => y - x));
    // Not every pair alike by title is a duplicate: the judgement drops some of them.
    const all = await lint(homelab, { limit: 1000 });
    expect(all.duplicateTopics.length).toBeLessThan(Math.min(1000, reference.length));
  });

  it('weighing the pairs a few cards at a time gives what weighing them all at once gives', { timeout: 300_000 }, async () => {
    const pairs = reference.filter((p) => p.raw >= Math.fround(0.45)).map((p) => ({ a: p.a, b: p.b, titleSimilarity: p.similarity }));
    const cards = new Set(pairs.flatMap((p) => [p.a, p.b])).size;
    expect(cards).toBeGreaterThan(100);
    const whole = await judgeDuplicates(createLintRun(homelab), pairs, undefined, undefined, cards);
    // Most judged and some dropped, or the comparison would say little.
    expect(whole.length).toBeGreaterThan(50);
    expect(whole.length).toBeLessThan(pairs.length);
    expect(await judgeDuplicates(createLintRun(homelab), pairs, undefined, undefined, 7)).toEqual(whole);
  });
});

describeOn('pglite', 'lint near-duplicates by embedding: the same pairs as the all-pairs join', (brain) => {
  let homelab: BrainContext;
  const embedder = SEED_EMBEDDER();
  beforeAll(async () => {
    await seedLintSubject(brain().admin, 'homelab', { topics: CARDS, clusters: CLUSTERS, vectors: true });
    homelab = await contextFor(brain(), 'homelab');
  }, 300_000);

  it('through the HNSW index, with the identical groups compared exactly', { timeout: 300_000 }, async () => {
    const expected = await allPairsByEmbedding(brain(), embedder.model, embedder.dimensions, 0.9);
    const clusterPairs = CLUSTERS[0] * ((CLUSTERS[1] * (CLUSTERS[1] - 1)) / 2);
    expect(expected.length).toBeGreaterThan(clusterPairs + 100);
    const got = await similarEmbeddings(createLintRun(homelab), { model: embedder.model, dims: embedder.dimensions }, 0.9);
    expect(got.map(key).sort()).toEqual(expected);
  });

  it('exactly, batch by batch, as for a dimension without an HNSW index', { timeout: 300_000 }, async () => {
    // The path a model of another dimension takes, asked for on these vectors.
    const expected = await allPairsByEmbedding(brain(), embedder.model, embedder.dimensions, 0.95);
    expect(expected.length).toBeGreaterThan(100);
    const got = await similarEmbeddings(createLintRun(homelab), { model: embedder.model, dims: embedder.dimensions }, 0.95, { exact: true });
    expect(got.map(key).sort()).toEqual(expected);
  });

  it("the hook the server uses gives each card's nearest cards from the candidate floor, with their cosines", { timeout: 300_000 }, async () => {
    const floor = CANDIDATE_COSINE; // the offline model's scale runs 0 to 1
    const pairs = (await embeddingLintHooks(embedder).duplicateCandidates!(createLintRun(homelab)))!;
    expect(pairs.length).toBeGreaterThan(200); // 530 on this seed: the variations and the identical groups
    for (const p of pairs) expect(p.cosine).toBeGreaterThanOrEqual(floor);
    // The pairs are the database's own: each one is in the all-pairs join at the floor.
    const reference = new Set((await allPairsByEmbedding(brain(), embedder.model, embedder.dimensions, floor)).map((k) => k.split(' ').slice(0, 3).join(' ')));
    for (const p of pairs) expect(reference.has(`${p.a} ~ ${p.b}`)).toBe(true);
  });
});
