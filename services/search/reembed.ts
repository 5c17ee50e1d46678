// Embedding on demand, for the CLI: everything again (after changing the chunker or
// suspecting bad vectors), or only what is stale, or one card. Same code path as the worker,
// run to completion; errors propagate, because a person is watching.
import type { Embedder } from '../embeddings/embedder.js';
import { BrainError } from '../knowledge/errors.js';
import type { BrainContext } from '../knowledge/context.js';
import { embedPendingBatch, modelOf, type BatchResult } from './embed-cards.js';
import { countPending } from './pending.js';
import { subjectsWithVectors } from './vectors.js';
import { NO_VECTORS } from './worker.js';

export interface EmbedRunResult extends BatchResult {
  model: string;
  pending: number;
  ms: number;
}

const DEFAULT_BATCH = 32;

async function requireVectors(ctx: BrainContext): Promise<void> {
  if ((await subjectsWithVectors(ctx.db, [ctx.subject.name])).length === 0) {
    throw new BrainError('invalid_input', NO_VECTORS, 'Install pgvector on the server (or use the embedded brain) and run the bootstrap again.');
  }
}

async function runToCompletion(ctx: BrainContext, embedder: Embedder, batchSize: number, slug?: string): Promise<EmbedRunResult> {
  const started = performance.now();
  const total: BatchResult = { embedded: 0, unchanged: 0, chunks: 0, seen: 0 };
  for (;;) {
    const r = await embedPendingBatch(ctx, embedder, { batchSize, slug });
    total.embedded += r.embedded;
    total.unchanged += r.unchanged;
    total.chunks += r.chunks;
    total.seen += r.seen;
    // Nothing written (all vanished meanwhile) also ends the run: never spin.
    if (r.seen === 0 || r.embedded + r.unchanged === 0 || slug !== undefined) break;
  }
  const pending = await countPending(ctx.db, ctx.subject.name, modelOf(embedder));
  return { ...total, model: embedder.model, pending, ms: performance.now() - started };
}

/** Re-embeds every card of this subject with `embedder`, whether or not it changed. */
export async function reembedAll(ctx: BrainContext, embedder: Embedder, opts: { batchSize?: number } = {}): Promise<EmbedRunResult> {
  await requireVectors(ctx);
  // Forgetting what was embedded makes every card pending; the vectors stay until each card's are replaced.
  await ctx.db.withSchema(ctx.subject.name).deleteFrom('embedding_state').where('model', '=', embedder.model).execute();
  return runToCompletion(ctx, embedder, opts.batchSize ?? DEFAULT_BATCH);
}

/** Embeds what is pending (or, with a slug, that topic if it is pending). */
export async function embedStale(ctx: BrainContext, embedder: Embedder, opts: { slug?: string; batchSize?: number } = {}): Promise<EmbedRunResult> {
  await requireVectors(ctx);
  return runToCompletion(ctx, embedder, opts.batchSize ?? DEFAULT_BATCH, opts.slug);
}
