// Embeds pending cards of the context's own subject: chunk, embed (outside any
// transaction: the embedder may be slow or down, and the database must not wait for it),
// then replace each card's chunks and record the version embedded, in one short
// transaction per card. A card whose chunk text did not change since the model last embedded it
// (only its timeline or tags moved) just has its state brought forward.
import { sql } from 'kysely';
import { chunkCard, contentHash, type Chunk } from '../embeddings/chunker.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { BrainContext, Trx } from '../knowledge/context.js';
import { pendingCards, type EmbedModel, type PendingCard } from './pending.js';
import type { Entity } from './types.js';
import { assertDimensions, vectorLiteral } from './vectors.js';

/** Chunk size for embedding: ~1200 chars (~300 tokens) keeps a section's meaning in focus for both models. */
export const CHUNK_OPTIONS = { maxChars: 1200, overlapChars: 150 } as const;

/**
 * Chunks one batch may embed and write: a batch is one embedder call and one transaction, and
 * in the embedded brain that transaction holds the one connection every subject shares. A card
 * with more chunks than this (up to ~200: EMBED_TEXT_LIMIT) is a batch of its own.
 */
export const BATCH_CHUNK_BUDGET = 64;

/** Chunk rows per INSERT when a card's chunks are written (see replaceChunks). */
export const CHUNK_ROWS_PER_STATEMENT = 8;

export interface BatchResult {
  /** Cards whose chunks were (re)embedded. */
  embedded: number;
  /** Cards whose text had not changed: state moved forward, nothing embedded. */
  unchanged: number;
  /** Chunks sent to the embedder. */
  chunks: number;
  /** Cards looked at (embedded + unchanged + vanished). */
  seen: number;
}

export function modelOf(embedder: Embedder): EmbedModel {
  assertDimensions(embedder.dimensions);
  return { model: embedder.model, dims: embedder.dimensions };
}

interface Prepared {
  card: PendingCard;
  chunks: Chunk[];
  hash: string;
  vectors?: number[][];
}

export interface BatchOptions {
  /** Cards per batch at most. */
  batchSize: number;
  /** Only this topic, if it is pending. */
  slug?: string | undefined;
  /** Chunks per batch at most (one card at least); default BATCH_CHUNK_BUDGET. */
  chunkBudget?: number;
  /** Stops waiting for the embedder: the batch then throws and writes nothing. */
  signal?: AbortSignal;
}

/**
 * Embeds up to `batchSize` pending cards, fewer when their chunks exceed the chunk budget (at
 * least one card). Throws what the embedder throws (nothing is written then).
 */
export async function embedPendingBatch(ctx: BrainContext, embedder: Embedder, opts: BatchOptions): Promise<BatchResult> {
  const subject = ctx.subject.name;
  const m = modelOf(embedder);
  const prepared: Prepared[] = [];
  let budget = opts.chunkBudget ?? BATCH_CHUNK_BUDGET;
  for (const card of await pendingCards(ctx.db, subject, m, opts.batchSize, opts.slug)) {
    const chunks = chunkCard({ title: card.title, summary: card.summary, body: card.body }, CHUNK_OPTIONS);
    const hash = contentHash(chunks);
    const cost = hash === card.storedHash ? 0 : chunks.length;
    // The rest stay pending for the next batch.
    if (prepared.length > 0 && cost > budget) break;
    budget -= cost;
    prepared.push({ card, chunks, hash });
  }
  const cards = prepared.map((p) => p.card);
  const toEmbed = prepared.filter((p) => p.hash !== p.card.storedHash);
  // One call for the whole batch: the embedder batches its own requests (Ollama's batchSize).
  const vectors = toEmbed.length > 0 ? await abortable(embedder.embedDocuments(toEmbed.flatMap((p) => p.chunks.map((c) => c.text))), opts.signal) : [];
  opts.signal?.throwIfAborted();
  let offset = 0;
  for (const p of toEmbed) {
    p.vectors = vectors.slice(offset, offset + p.chunks.length);
    offset += p.chunks.length;
  }
  const result: BatchResult = { embedded: 0, unchanged: 0, chunks: vectors.length, seen: cards.length };
  if (cards.length === 0) return result;
  // Cards whose text did not change: their state moves forward together, cheaply.
  const unchanged = prepared.filter((p) => !p.vectors);
  if (unchanged.length > 0) {
    await ctx.db.transaction().execute(async (trx) => {
      const alive = await lockCards(trx, subject, unchanged.map((p) => p.card));
      for (const p of unchanged) {
        if (!alive.has(`${p.card.entity}:${p.card.id}`)) continue; // deleted meanwhile
        await recordState(trx, subject, p.card.entity, p.card.id, m, p.card.version, p.hash, p.chunks.length);
        result.unchanged++;
      }
    });
  }
  // Each embedded card in its own transaction (its vectors go into the HNSW index, which in the
  // embedded brain is WebAssembly on the main thread), with a turn of the event loop between.
  for (const p of prepared.filter((x) => x.vectors)) {
    opts.signal?.throwIfAborted();
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.db.transaction().execute(async (trx) => {
      const alive = await lockCards(trx, subject, [p.card]);
      if (!alive.has(`${p.card.entity}:${p.card.id}`)) return; // deleted meanwhile: its chunks went with it
      await replaceChunks(trx, subject, p, m);
      result.embedded++;
    });
  }
  return result;
}

/** The embedder's answer, or the abort's reason, whichever comes first (the embedder's late answer is dropped). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Locks the cards still present (FOR KEY SHARE: a concurrent delete waits, edits do not). */
async function lockCards(trx: Trx, subject: string, cards: readonly PendingCard[]): Promise<Set<string>> {
  const alive = new Set<string>();
  for (const entity of ['topic', 'episode'] as const) {
    const ids = cards.filter((c) => c.entity === entity).map((c) => c.id);
    if (ids.length === 0) continue;
    const table = sql.table(`${subject}.${entity === 'topic' ? 'topics' : 'episodes'}`);
    const rows = await sql<{ id: number }>`SELECT id FROM ${table} WHERE id = ANY(${ids}::bigint[]) FOR KEY SHARE`.execute(trx);
    for (const r of rows.rows) alive.add(`${entity}:${Number(r.id)}`);
  }
  return alive;
}

/**
 * The card's chunks of every model are replaced by this model's: once a card is embedded with
 * the new model, the old model's vectors have nothing left to do. Cards not yet reached keep
 * theirs, so a brain holds both models while it catches up.
 */
async function replaceChunks(trx: Trx, subject: string, p: Prepared, m: EmbedModel): Promise<void> {
  const col = p.card.entity === 'topic' ? 'topic_id' : 'episode_id';
  await trx.withSchema(subject).deleteFrom('chunks').where(col, '=', p.card.id).execute();
  await trx.withSchema(subject).deleteFrom('embedding_state').where(col, '=', p.card.id).where('model', '<>', m.model).execute();
  // In slices, with a turn of the event loop between: one statement is one uninterrupted run
  // of PGlite's WebAssembly on the main thread, and each row is an HNSW insert (a capped 10 MB
  // card has about 190 chunks, seconds of index work under load). Between slices the process
  // still answers /healthz and HTTP; the transaction keeps the card's chunks all-or-nothing.
  for (let from = 0; from < p.chunks.length; from += CHUNK_ROWS_PER_STATEMENT) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    const slice = p.chunks.slice(from, from + CHUNK_ROWS_PER_STATEMENT);
    await trx
      .withSchema(subject)
      .insertInto('chunks')
      .values(
        slice.map((c, j) => ({
          topic_id: p.card.entity === 'topic' ? p.card.id : null,
          episode_id: p.card.entity === 'episode' ? p.card.id : null,
          chunk_index: c.index,
          heading: c.heading,
          text: c.text,
          model: m.model,
          dims: m.dims,
          content_hash: p.hash,
          embedding: vectorLiteral(p.vectors![from + j]!),
        })),
      )
      .execute();
  }
  await recordState(trx, subject, p.card.entity, p.card.id, m, p.card.version, p.hash, p.chunks.length);
}

async function recordState(trx: Trx, subject: string, entity: Entity, id: number, m: EmbedModel, version: string, hash: string, chunkCount: number): Promise<void> {
  const col = entity === 'topic' ? 'topic_id' : 'episode_id';
  const state = sql.table(`${subject}.embedding_state`);
  // The unique indexes are partial, so ON CONFLICT names the index predicate.
  await sql`INSERT INTO ${state} (${sql.ref(col)}, model, dims, source_updated_at, content_hash, chunk_count, embedded_at)
            VALUES (${id}, ${m.model}, ${m.dims}, ${version}::timestamptz, ${hash}, ${chunkCount}, now())
            ON CONFLICT (${sql.ref(col)}, model) WHERE ${sql.ref(col)} IS NOT NULL
            DO UPDATE SET dims = EXCLUDED.dims, source_updated_at = EXCLUDED.source_updated_at, content_hash = EXCLUDED.content_hash,
                          chunk_count = EXCLUDED.chunk_count, embedded_at = EXCLUDED.embedded_at`.execute(trx);
}
