// Lint's embedding checks, where this subject has embeddings: near-duplicate cards by the
// cosine similarity of their first chunks (same model only), stale embeddings counted,
// and a re-queue that makes the subject's worker embed everything again.
//
// Near-duplicates by meaning are found per card, in batches of cards (each batch one short
// statement through the LintRun): each card's nearest first chunks through the model's HNSW
// index (ORDER BY <=> LIMIT k, pgvector's iterative scan past the filtered rows), keeping the
// ones at or above the threshold. A card whose k nearest are all above it may have more, so
// it is compared with every card exactly. Where the dimension has no HNSW index, or the
// subject has few cards, every batch's cards are compared with every later card exactly. The similarity and the threshold
// test are the old all-pairs expression, 1 - (a <=> b), evaluated by the database; only the
// nearest-neighbour search is approximate (HNSW), so a pair the index fails to return from
// either of its two cards would be missed: on the seeded test and bench sets none was.
import { sql, type RawBuilder } from 'kysely';
import { setLocally } from '../../db/statement-settings.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { BrainContext, Trx } from '../knowledge/index.js';
import { countPending, subjectsWithVectors } from '../search/index.js';
import { modelOf } from '../search/embed-cards.js';
import type { EmbedModel } from '../search/pending.js';
import { indexScanSettings, INDEXED_DIMENSIONS } from '../search/vectors.js';
import { judgementModelFor } from '../search/calibration.js';
import type { LintEmbeddingHooks } from './lint.js';
import { byPairOrder, type SimilarPair } from './similar-titles.js';
import type { LintRun } from './lint-batches.js';

/** Neighbours asked of the index per card; a card with this many above the threshold is compared exactly. */
export const NEIGHBOURS = 10;
/**
 * Up to this many cards every pair is compared exactly: cheaper than an index search per card
 * while half the cards cost less than one search (about 4 ms per card on PGlite at 3,000 cards,
 * against 15 us per pair compared), and exactly the old definition.
 */
export const EXACT_UP_TO = 500;
const ID_PAGE = 5_000;
/**
 * Each card's nearest cards from this cosine (on the model's scale: 0 unrelated, 1 related) are
 * weighed as possible duplicates; below it no labelled same-thing pair was found
 * (bench/judgement/lint.ts).
 */
export const CANDIDATE_COSINE = 0.5;

export function embeddingLintHooks(embedder: Embedder): LintEmbeddingHooks {
  const m = modelOf(embedder);
  const hasVectors = async (db: BrainContext['db'] | Trx, subject: string) => (await subjectsWithVectors(db, [subject])).length > 0;
  return {
    model: m.model,
    async duplicateCandidates(run) {
      if (!(await run.step('embedding-tables', (trx) => hasVectors(trx, run.ctx.subject.name)))) return null;
      const scale = judgementModelFor(m.model).scale;
      const floor = scale.unrelated + CANDIDATE_COSINE * (scale.related - scale.unrelated);
      return (await similarEmbeddings(run, m, floor, { nearestOnly: true })).map((p) => ({ a: p.a, b: p.b, cosine: p.cosine! }));
    },
    async pairCosines(run, pairs) {
      return firstChunkCosines(run, m, pairs);
    },
    async staleCount(ctx) {
      return (await hasVectors(ctx.db, ctx.subject.name)) ? countPending(ctx.db, ctx.subject.name, m) : 0;
    },
    async requeue(ctx) {
      if (!(await hasVectors(ctx.db, ctx.subject.name))) return 0;
      const r = await sql`DELETE FROM ${sql.table(`${ctx.subject.name}.embedding_state`)} WHERE model = ${m.model}`.execute(ctx.db);
      return Number(r.numAffectedRows ?? 0);
    },
  };
}

interface PairRow {
  a_id: number;
  b_id: number;
  a: string;
  b: string;
  similarity: number;
  cosine: number;
  hit: boolean;
}

/**
 * Every pair of cards whose first chunks (this model) have cosine similarity >= threshold, best
 * first. `exact` compares every pair, batch by batch, as is done where there is no index or
 * there are few cards.
 */
export async function similarEmbeddings(run: LintRun, m: EmbedModel, threshold: number, opts: { exact?: boolean; nearestOnly?: boolean } = {}): Promise<SimilarPair[]> {
  const s = run.ctx.subject.name;
  const chunks = sql.table(`${s}.chunks`);
  const topics = sql.table(`${s}.topics`);
  const ids: number[] = [];
  for (let after = 0; ; ) {
    const rows = await run.step(
      'embedding-cards',
      async (trx) =>
        (
          await sql<{ id: number }>`SELECT topic_id AS id FROM ${chunks}
             WHERE topic_id > ${after} AND chunk_index = 0 AND model = ${m.model} AND dims = ${m.dims}
             ORDER BY topic_id LIMIT ${ID_PAGE}`.execute(trx)
        ).rows,
      ID_PAGE,
    );
    ids.push(...rows.map((r) => Number(r.id)));
    if (rows.length < ID_PAGE) break;
    after = ids.at(-1)!;
  }

  const found = new Map<string, SimilarPair>();
  const keep = (rows: PairRow[]) => {
    for (const r of rows) {
      if (!r.hit) continue;
      const [a, b] = Number(r.a_id) < Number(r.b_id) ? [r.a, r.b] : [r.b, r.a];
      found.set(`${a}|${b}`, { a, b, similarity: r.similarity, cosine: Number(r.cosine) });
    }
  };
  // The old definition, for the cards in `batch` against every later card: exact.
  const exactly = async (trx: Trx, batch: number[], against: 'later' | 'all') => {
    const rows = await sql<PairRow>`
      SELECT ca.topic_id AS a_id, cb.topic_id AS b_id, ta.slug AS a, tb.slug AS b,
             round((1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::numeric, 2)::float AS similarity,
             (1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::float8 AS cosine, true AS hit
        FROM ${chunks} ca JOIN ${chunks} cb ON ${against === 'later' ? sql`cb.topic_id > ca.topic_id` : sql`cb.topic_id <> ca.topic_id`}
                                            AND cb.chunk_index = 0 AND cb.model = ca.model
        JOIN ${topics} ta ON ta.id = ca.topic_id JOIN ${topics} tb ON tb.id = cb.topic_id
       WHERE ca.topic_id = ANY(${batch}::bigint[]) AND ca.chunk_index = 0 AND ca.model = ${m.model} AND ca.dims = ${m.dims}
         AND 1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding) >= ${threshold}
         AND ta.archived_at IS NULL AND tb.archived_at IS NULL`.execute(trx);
    keep(rows.rows);
  };

  if (opts.exact || ids.length <= EXACT_UP_TO || !INDEXED_DIMENSIONS.includes(m.dims)) {
    await run.batches('embedding-pairs-exact', ids, (trx, batch) => exactly(trx, batch, 'later'), { initial: 10, max: 1_000 });
    return [...found.values()].sort(byPairOrder);
  }

  const saturated: number[] = [];
  await run.batches(
    'embedding-pairs',
    ids,
    async (trx, batch) => {
      await tuneIndexScan(trx, NEIGHBOURS);
      const rows = await nearest(trx, s, m, batch, NEIGHBOURS, threshold);
      keep(rows);
      const hits = new Map<number, number>();
      for (const r of rows) if (r.hit) hits.set(Number(r.a_id), (hits.get(Number(r.a_id)) ?? 0) + 1);
      for (const [id, n] of hits) if (n >= NEIGHBOURS) saturated.push(id);
    },
    { initial: 20, max: 500 },
  );
  // More near-duplicates than the index was asked for: compare these cards with all others
  // (unless only each card's nearest are wanted, as candidates for the judgement).
  if (opts.nearestOnly) return [...found.values()].sort(byPairOrder);
  await run.batches('embedding-pairs-saturated', saturated, (trx, batch) => exactly(trx, batch, 'all'), { initial: 1, max: 100 });
  return [...found.values()].sort(byPairOrder);
}

/**
 * The cosine of each pair's first chunks (this model), for candidates found by title; pairs
 * where either card has no such chunk are left out. Keyed `a\u0000b`.
 */
async function firstChunkCosines(run: LintRun, m: EmbedModel, pairs: readonly { a: string; b: string }[]): Promise<Map<string, number>> {
  const s = run.ctx.subject.name;
  const chunks = sql.table(`${s}.chunks`);
  const topics = sql.table(`${s}.topics`);
  const out = new Map<string, number>();
  await run.batches(
    'duplicate-cosines',
    pairs,
    async (trx, batch) => {
      const rows = await sql<{ a: string; b: string; cosine: number }>`
        SELECT p.a, p.b, (1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::float8 AS cosine
          FROM unnest(${batch.map((p) => p.a)}::text[], ${batch.map((p) => p.b)}::text[]) AS p(a, b)
          JOIN ${topics} ta ON ta.slug = p.a JOIN ${topics} tb ON tb.slug = p.b
          JOIN ${chunks} ca ON ca.topic_id = ta.id AND ca.chunk_index = 0 AND ca.model = ${m.model} AND ca.dims = ${m.dims}
          JOIN ${chunks} cb ON cb.topic_id = tb.id AND cb.chunk_index = 0 AND cb.model = ${m.model} AND cb.dims = ${m.dims}`.execute(trx);
      for (const r of rows.rows) out.set(`${r.a}\u0000${r.b}`, Number(r.cosine));
    },
    { initial: 200, max: 2_000 },
  );
  return out;
}

/** The indexed expression of the HNSW index of these dimensions, spelt as the migration defines it. */
function typed(column: string, dims: number): RawBuilder<unknown> {
  return sql.raw(`(${column}::brain_ext.vector(${dims}))`);
}

/**
 * As search does (services/search/vectors.ts): ef_search at least k and the iterative scan,
 * so filtered-out rows (other models, later chunks, episodes) do not shorten the list; and the
 * index as the only access path, which the planner would otherwise trade for a sort of every
 * chunk per card (44 ms per card at 3,000 cards on PGlite, against 4 ms through the index).
 */
async function tuneIndexScan(trx: Trx, k: number): Promise<void> {
  await setLocally(trx, { ...indexScanSettings(k), enable_bitmapscan: 'off' });
}

/** The k nearest other cards' first chunks of each card in `batch`, with the old similarity and threshold test. */
async function nearest(trx: Trx, s: string, m: EmbedModel, batch: number[], k: number, threshold: number): Promise<PairRow[]> {
  const chunks = sql.table(`${s}.chunks`);
  const topics = sql.table(`${s}.topics`);
  const dims = sql.lit(m.dims);
  return (
    await sql<PairRow>`
      SELECT q.topic_id AS a_id, n.topic_id AS b_id, ta.slug AS a, tb.slug AS b,
             round((1 - n.distance)::numeric, 2)::float AS similarity, (1 - n.distance)::float8 AS cosine, (1 - n.distance) >= ${threshold} AS hit
        FROM ${chunks} q
        CROSS JOIN LATERAL (
          SELECT c.topic_id, c.embedding OPERATOR(brain_ext.<=>) q.embedding AS distance
            FROM ${chunks} c
           WHERE c.dims = ${dims} AND c.model = ${m.model} AND c.chunk_index = 0 AND c.topic_id IS NOT NULL AND c.topic_id <> q.topic_id
           ORDER BY ${typed('c.embedding', m.dims)} OPERATOR(brain_ext.<=>) ${typed('q.embedding', m.dims)}
           LIMIT ${k}) n
        JOIN ${topics} ta ON ta.id = q.topic_id JOIN ${topics} tb ON tb.id = n.topic_id
       WHERE q.topic_id = ANY(${batch}::bigint[]) AND q.chunk_index = 0 AND q.model = ${m.model} AND q.dims = ${dims}
         AND ta.archived_at IS NULL AND tb.archived_at IS NULL`.execute(trx)
  ).rows;
}
