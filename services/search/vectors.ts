// The vector side: whether a subject has embedding tables (only where pgvector is), the
// pgvector text form, and nearest-chunk search. Vectors are compared only within one model
// and one dimension, through the partial HNSW index of that dimension.
import { sql, type RawBuilder } from 'kysely';
import { rowsWithSettings, type StatementSettings } from '../../db/statement-settings.js';
import type { Db, Trx } from '../knowledge/context.js';
import { episodeFilter, topicFilter, wantsEpisodes } from './sql-filters.js';
import type { CardRef, SearchFilters } from './types.js';

/** Dimensions with an HNSW index (migrations/subject/0003_embeddings.sql); others are searched exactly. */
export const INDEXED_DIMENSIONS: readonly number[] = [768, 512];

/**
 * Which schemas have the embedding tables, per database handle (one role): a table that exists
 * stays (migrations never drop it), so a yes is kept; a no is asked again after NO_VECTORS_RECHECK_MS
 * (pgvector may be installed and the brain migrated while it runs). Every hybrid search asked
 * this before, one statement per search.
 */
const vectorTables = new WeakMap<object, Map<string, boolean | number>>();
const NO_VECTORS_RECHECK_MS = 60_000;

/** The subjects among `subjects` whose schema has the embedding tables. */
export async function subjectsWithVectors(db: Db | Trx, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  let known = vectorTables.get(db);
  if (!known) vectorTables.set(db, (known = new Map()));
  const now = Date.now();
  const unknown = subjects.filter((s) => {
    const k = known.get(s);
    return k === undefined || (typeof k === 'number' && now - k > NO_VECTORS_RECHECK_MS);
  });
  if (unknown.length > 0) {
    const rows = await sql<{ s: string }>`SELECT s FROM unnest(${unknown}::text[]) s WHERE to_regclass(quote_ident(s) || '.chunks') IS NOT NULL`.execute(db);
    const have = new Set(rows.rows.map((r) => r.s));
    for (const s of unknown) known.set(s, have.has(s) ? true : now);
  }
  return subjects.filter((s) => known.get(s) === true);
}

/** Parameters already made, by vector: a search sends its query's vector twice (the vector statement, the relevance evidence). */
const params = new WeakMap<readonly number[], Uint8Array>();

/**
 * A vector as a statement parameter, in pgvector's binary form (vector_recv): the dimension count
 * and a zero as 16-bit integers, then each element as a float4, all big-endian. Both dialects send
 * a Uint8Array in binary. Before, the text form went out (`[0.1234567,...]`, seven significant
 * digits): 9-10 kB for 768 dimensions against 3 kB, made in JavaScript, measured for its byte
 * length, encoded, and parsed number by number in the database. Binary also keeps the nearest
 * float4 of each element, where seven digits could be one step off. Made once per vector; a
 * vector is not changed once made.
 */
export function vectorParam(v: readonly number[]): Uint8Array {
  let param = params.get(v);
  if (param === undefined) {
    assertDimensions(v.length);
    const view = new DataView(new ArrayBuffer(4 + 4 * v.length));
    view.setInt16(0, v.length);
    view.setInt16(2, 0);
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (!Number.isFinite(x)) throw new RangeError(`vector element ${i} is not a finite number: ${x}`);
      view.setFloat32(4 + 4 * i, x);
    }
    params.set(v, (param = new Uint8Array(view.buffer)));
  }
  return param;
}

export function assertDimensions(dims: number): void {
  if (!Number.isInteger(dims) || dims < 1 || dims > 16_000) throw new RangeError(`vector dimensions must be an integer in 1..16000, got ${dims}`);
}

/** The indexed expression for `dims`, spelt exactly as the index defines it. */
function typed(dims: number): RawBuilder<unknown> {
  return sql.raw(`(embedding::brain_ext.vector(${dims}))`);
}

export interface VectorHit extends CardRef {
  kind: string;
  /** Episodes: when it happened; null for topics. */
  occurredAt: Date | null;
  /** Cosine distance of the card's nearest chunk (0 = same direction, 2 = opposite). */
  distance: number;
  /** That chunk's text: the card's most relevant passage for this query. */
  passage: string;
}

/**
 * HNSW returns at most ef_search rows, and a filter on model applied after the index scan
 * would drop some of them; so ef_search is raised to what we ask for and pgvector's
 * iterative scan keeps scanning until enough rows pass.
 * The planner prices a sequential scan's distance computations far too low: past a LIMIT of
 * about 50 it sorts the whole table instead of walking the index, 25 ms against 3 ms at only
 * 3k chunks. The index is always the right plan here, so sequential scans are off for this one
 * statement (the joins to the cards use their primary keys either way).
 */
export function indexScanSettings(k: number): StatementSettings {
  return { 'hnsw.ef_search': String(Math.min(1000, Math.max(40, k))), 'hnsw.iterative_scan': 'relaxed_order', enable_seqscan: 'off' };
}

export interface VectorQuery {
  embedding: readonly number[];
  model: string;
  dims: number;
  /** How many nearest chunks to take per subject before grouping them by card. */
  chunkLimit: number;
}

/** Nearest cards by their nearest chunk, across subjects, best first. */
export async function vectorSearch(db: Db, subjects: readonly string[], query: VectorQuery, filters: SearchFilters, limit: number): Promise<VectorHit[]> {
  assertDimensions(query.dims);
  if (query.embedding.length !== query.dims) throw new RangeError(`query vector has ${query.embedding.length} dimensions, expected ${query.dims}`);
  if (subjects.length === 0) return [];
  const probe = sql`${vectorParam(query.embedding)}::${sql.raw(`brain_ext.vector(${query.dims})`)}`;
  const distance = sql`${typed(query.dims)} OPERATOR(brain_ext.<=>) ${probe}`;
  const episodes = wantsEpisodes(filters);
  const parts = subjects.map(
    (subject) => sql`(SELECT ${subject}::text AS subject,
                             CASE WHEN a.topic_id IS NULL THEN 'episode' ELSE 'topic' END AS entity,
                             coalesce(a.topic_id, a.episode_id) AS id, coalesce(t.kind, e.kind) AS kind, e.occurred_at, a.distance, a.text
                        FROM (SELECT topic_id, episode_id, text, ${distance} AS distance
                                FROM ${sql.table(`${subject}.chunks`)}
                               WHERE dims = ${sql.lit(query.dims)} AND model = ${query.model}
                               ORDER BY ${distance}
                               LIMIT ${query.chunkLimit}) a
                        LEFT JOIN ${sql.table(`${subject}.topics`)} t ON t.id = a.topic_id
                        LEFT JOIN ${sql.table(`${subject}.episodes`)} e ON e.id = a.episode_id
                       WHERE (t.id IS NOT NULL AND ${sql.lit(filters.includeTopics)} AND ${topicFilter(subject, filters)})
                          OR (e.id IS NOT NULL AND ${sql.lit(episodes)} AND ${episodeFilter(filters)}))`,
  );
  const rows = await rowsWithSettings(
    db,
    indexScanSettings(query.chunkLimit),
    sql<{ subject: string; entity: 'topic' | 'episode'; id: number; kind: string; occurred_at: Date | string | null; distance: number; text: string }>`
      SELECT subject, entity, id, kind, occurred_at, distance::float8 AS distance, text FROM (${sql.join(parts, sql` UNION ALL `)}) c
       ORDER BY distance, subject, entity, id`,
  );
  // Best chunk per card: rows arrive nearest first, so the first one seen wins.
  const best = new Map<string, VectorHit>();
  for (const r of rows) {
    const key = `${r.subject}:${r.entity}:${r.id}`;
    if (!best.has(key)) best.set(key, {
        subject: r.subject,
        entity: r.entity,
        id: Number(r.id),
        kind: r.kind,
        occurredAt: r.occurred_at === null ? null : new Date(r.occurred_at),
        distance: Number(r.distance),
        passage: r.text,
      });
    if (best.size >= limit) break;
  }
  return [...best.values()];
}
