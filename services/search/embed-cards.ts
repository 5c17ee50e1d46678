// Embeds pending cards of the context's own subject: chunk, embed (outside any
// transaction: the embedder may be slow or down, and the database must not wait for it),
// then replace the cards' chunks and record the version embedded, in short transactions of a
// few cards each. A card whose chunk text did not change since the model last embedded it
// (only its timeline or tags moved) just has its state brought forward.
//
// A batch is read once and embedded in calls of EMBED_CALL_CHUNKS, two in flight: while this
// thread writes one call's cards (in the embedded brain that is PGlite, here), the model works
// on the next (the offline one in its own threads). Writing and embedding used to take turns.
import { sql } from 'kysely';
import { chunkCard, contentHash, type Chunk } from '../embeddings/chunker.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { BrainContext, Trx } from '../knowledge/context.js';
import { pendingCards, type EmbedModel, type PendingCard } from './pending.js';
import type { Entity } from './types.js';
import { assertDimensions, vectorParam } from './vectors.js';

/** Chunk size for embedding: ~1200 chars (~300 tokens) keeps a section's meaning in focus for both models. */
export const CHUNK_OPTIONS = { maxChars: 1200, overlapChars: 150 } as const;

/**
 * Chunks one batch may embed: one read of the pending cards, and what stop() drops at most. A
 * card with more chunks than this (up to ~200: EMBED_TEXT_LIMIT) is a batch of its own.
 */
export const BATCH_CHUNK_BUDGET = 256;

/**
 * Chunks per embedder call (whole cards; a bigger card is a call of its own). The offline
 * embedder sorts a call's texts by length before packing them into model calls, and packs
 * better the more it gets: sorted within 64, a GBrain backlog padded to 10% over its tokens
 * (unsorted batches of 4: 61% over).
 */
export const EMBED_CALL_CHUNKS = 64;

/** Embedder calls in flight: the one being written and the next. */
const CALLS_IN_FLIGHT = 2;

/**
 * Chunk rows per write transaction: small cards share one (each transaction, and each
 * statement, is a round of PGlite's WebAssembly on the main thread); a bigger card is one of its
 * own. Short, because in the embedded brain a transaction holds the one connection every
 * subject shares.
 */
export const CHUNK_ROWS_PER_TRANSACTION = 16;

/** Chunk rows per INSERT (see insertChunks). */
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
  /** Stops waiting for the embedder: the batch then throws, and what was not yet written stays pending. */
  signal?: AbortSignal;
  /**
   * Called before the batch writes anything: it found pending cards and, where they needed it,
   * the embedder answered (the worker's polls are background work until then, and a worker
   * whose embedder is down keeps nothing awake).
   */
  beforeWrite?: () => void;
}

/**
 * Embeds up to `batchSize` pending cards, fewer when their chunks exceed the chunk budget (at
 * least one card). Throws what the embedder throws; the cards written before stay written.
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
  const result: BatchResult = { embedded: 0, unchanged: 0, chunks: 0, seen: prepared.length };
  if (prepared.length === 0) return result;
  // Cards whose text did not change: their state moves forward together, cheaply.
  const unchanged = prepared.filter((p) => p.hash === p.card.storedHash);
  if (unchanged.length > 0) {
    opts.beforeWrite?.();
    await ctx.db.transaction().execute(async (trx) => {
      const alive = await lockCards(trx, subject, unchanged.map((p) => p.card));
      const present = unchanged.filter((p) => alive.has(key(p.card))); // the others were deleted meanwhile
      await recordStates(trx, subject, present, m);
      result.unchanged += present.length;
    });
  }
  const calls = inCalls(prepared.filter((p) => p.hash !== p.card.storedHash));
  const started: Promise<number[][]>[] = [];
  const start = (i: number) => {
    const texts = calls[i]!.flatMap((p) => p.chunks.map((c) => c.text));
    const call = abortable(embedder.embedDocuments(texts, opts.signal ? { signal: opts.signal } : {}), opts.signal);
    call.catch(() => undefined); // awaited in turn below; one that fails after an earlier failure has nobody waiting
    started[i] = call;
  };
  for (let i = 0; i < calls.length; i++) {
    for (let j = started.length; j < Math.min(calls.length, i + CALLS_IN_FLIGHT); j++) start(j);
    const vectors = await started[i]!;
    opts.signal?.throwIfAborted();
    let offset = 0;
    for (const p of calls[i]!) {
      p.vectors = vectors.slice(offset, offset + p.chunks.length);
      offset += p.chunks.length;
    }
    result.chunks += vectors.length;
    opts.beforeWrite?.();
    result.embedded += await writeEmbedded(ctx, calls[i]!, m, opts.signal);
  }
  return result;
}

/** Consecutive cards in calls of about EMBED_CALL_CHUNKS chunks (a bigger card alone). */
function inCalls(cards: Prepared[]): Prepared[][] {
  const calls: Prepared[][] = [];
  let call: Prepared[] = [];
  let n = 0;
  for (const p of cards) {
    if (call.length > 0 && n + p.chunks.length > EMBED_CALL_CHUNKS) {
      calls.push(call);
      call = [];
      n = 0;
    }
    call.push(p);
    n += p.chunks.length;
  }
  if (call.length > 0) calls.push(call);
  return calls;
}

/**
 * Writes embedded cards in transactions of at most CHUNK_ROWS_PER_TRANSACTION chunk rows (one
 * card at least), with a turn of the event loop between two: their vectors go into the HNSW
 * index, which in the embedded brain is WebAssembly on the main thread. Returns the cards written.
 */
async function writeEmbedded(ctx: BrainContext, cards: Prepared[], m: EmbedModel, signal: AbortSignal | undefined): Promise<number> {
  let written = 0;
  for (const group of inTransactions(cards)) {
    signal?.throwIfAborted();
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.db.transaction().execute(async (trx) => {
      const alive = await lockCards(trx, ctx.subject.name, group.map((p) => p.card));
      const present = group.filter((p) => alive.has(key(p.card))); // deleted meanwhile: its chunks went with it
      if (present.length === 0) return;
      await replaceChunks(trx, ctx.subject.name, present, m);
      written += present.length;
    });
  }
  return written;
}

function inTransactions(cards: Prepared[]): Prepared[][] {
  const groups: Prepared[][] = [];
  let group: Prepared[] = [];
  let rows = 0;
  for (const p of cards) {
    if (group.length > 0 && rows + p.chunks.length > CHUNK_ROWS_PER_TRANSACTION) {
      groups.push(group);
      group = [];
      rows = 0;
    }
    group.push(p);
    rows += p.chunks.length;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

const key = (c: Pick<PendingCard, 'entity' | 'id'>) => `${c.entity}:${c.id}`;

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
 * The cards' chunks of every model are replaced by this model's: once a card is embedded with
 * the new model, the old model's vectors have nothing left to do. Cards not yet reached keep
 * theirs, so a brain holds both models while it catches up.
 */
async function replaceChunks(trx: Trx, subject: string, cards: Prepared[], m: EmbedModel): Promise<void> {
  for (const entity of ['topic', 'episode'] as const) {
    const ids = cards.filter((p) => p.card.entity === entity).map((p) => p.card.id);
    if (ids.length === 0) continue;
    const col = entity === 'topic' ? 'topic_id' : 'episode_id';
    await trx.withSchema(subject).deleteFrom('chunks').where(col, 'in', ids).execute();
    await trx.withSchema(subject).deleteFrom('embedding_state').where(col, 'in', ids).where('model', '<>', m.model).execute();
  }
  const rows = cards.flatMap((p) =>
    p.chunks.map((c, j) => ({
      topic_id: p.card.entity === 'topic' ? p.card.id : null,
      episode_id: p.card.entity === 'episode' ? p.card.id : null,
      chunk_index: c.index,
      heading: c.heading,
      text: c.text,
      model: m.model,
      dims: m.dims,
      content_hash: p.hash,
      embedding: vectorParam(p.vectors![j]!),
    })),
  );
  // In slices, with a turn of the event loop between: one statement is one uninterrupted run
  // of PGlite's WebAssembly on the main thread, and each row is an HNSW insert (a capped 10 MB
  // card has about 190 chunks, seconds of index work under load). Between slices the process
  // still answers /healthz and HTTP; the transaction keeps each card's chunks all-or-nothing.
  for (let from = 0; from < rows.length; from += CHUNK_ROWS_PER_STATEMENT) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    await trx.withSchema(subject).insertInto('chunks').values(rows.slice(from, from + CHUNK_ROWS_PER_STATEMENT)).execute();
  }
  await recordStates(trx, subject, cards, m);
}

/** Records, per card and model, the version and content hash embedded: one statement per entity. */
async function recordStates(trx: Trx, subject: string, cards: Prepared[], m: EmbedModel): Promise<void> {
  const state = sql.table(`${subject}.embedding_state`);
  for (const entity of ['topic', 'episode'] as const satisfies readonly Entity[]) {
    const of = cards.filter((p) => p.card.entity === entity);
    if (of.length === 0) continue;
    const col = sql.ref(entity === 'topic' ? 'topic_id' : 'episode_id');
    const values = of.map((p) => sql`(${p.card.id}, ${m.model}, ${m.dims}, ${p.card.version}::timestamptz, ${p.hash}, ${p.chunks.length}, now())`);
    // The unique indexes are partial, so ON CONFLICT names the index predicate.
    await sql`INSERT INTO ${state} (${col}, model, dims, source_updated_at, content_hash, chunk_count, embedded_at)
              VALUES ${sql.join(values)}
              ON CONFLICT (${col}, model) WHERE ${col} IS NOT NULL
              DO UPDATE SET dims = EXCLUDED.dims, source_updated_at = EXCLUDED.source_updated_at, content_hash = EXCLUDED.content_hash,
                            chunk_count = EXCLUDED.chunk_count, embedded_at = EXCLUDED.embedded_at`.execute(trx);
  }
}
