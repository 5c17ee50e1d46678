// The embedder a brain runs with (Ollama when it answers, else the built-in offline one),
// created once per process and shared by its subjects, and one embedding worker per
// subject, embedding only that subject's own cards. Writes never wait for any of it.
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../../config/runtime.js';
import type { Embedder } from '../embeddings/embedder.js';
import { createEmbedder } from '../embeddings/select.js';
import type { BrainContext } from '../knowledge/index.js';
import { countPending, startEmbedWorker, subjectsWithVectors, type EmbedWorker, type SearchDeps } from '../search/index.js';
import { modelOf } from '../search/embed-cards.js';
import { embeddingLintHooks } from '../curation/lint-hooks.js';
import { searchPlanner } from '../curation/search-planner.js';
import type { ServerServices } from '../mcp/tools/types.js';
import type { EmbedderReport } from './readiness.js';

export interface EmbedderChoice {
  embedder: Embedder | undefined;
  reason: string;
}

export async function chooseEmbedder(rt: RuntimeConfig): Promise<EmbedderChoice> {
  if (rt.embedder === 'none') return { embedder: undefined, reason: 'embeddings disabled (BRAIN_EMBEDDER=none): keyword search only' };
  const { embedder, reason } = await createEmbedder({ provider: rt.embedder, ollamaUrl: rt.ollamaUrl, ollamaModel: rt.ollamaModel });
  return { embedder, reason };
}

export interface SubjectEmbedding {
  readonly deps: SearchDeps;
  report(): EmbedderReport;
  stop(): Promise<void>;
}

/**
 * The subject's embedding: its search deps, and (with `worker`, the default) the worker that
 * embeds its pending cards. One-shot commands pass worker: false: they embed queries only and
 * leave their cards queued for a server (see pendingNote).
 */
export function startSubjectEmbedding(ctx: BrainContext, choice: EmbedderChoice, logger: Logger, worker = true): SubjectEmbedding {
  if (!choice.embedder) {
    return { deps: {}, report: () => ({ state: 'off', detail: choice.reason }), stop: async () => undefined };
  }
  if (!worker) {
    return { deps: { embedder: choice.embedder }, report: () => ({ state: 'ok', pending: 0, model: choice.embedder!.model, detail: choice.reason }), stop: async () => undefined };
  }
  const running: EmbedWorker = startEmbedWorker({
    ctx,
    embedder: choice.embedder,
    // Cards per read of the pending ones (at most BATCH_CHUNK_BUDGET chunks); they are embedded
    // in calls of EMBED_CALL_CHUNKS, so a search waits for one model call, not for the batch.
    batchSize: 128,
    pollMs: 2_000,
    // A server's start (listening, the banner) goes first; see services/runtime/serve.ts.
    firstDelayMs: 1_000,
    logger: logger.child({ subject: ctx.subject.name, part: 'embedder' }),
  });
  return {
    deps: {
      embedder: choice.embedder,
      get embedderStatus() {
        return running.status();
      },
    },
    report: () => {
      const s = running.status();
      return { state: s.state, pending: s.pending, model: s.model, ...(s.lastError ? { detail: s.lastError } : { detail: choice.reason }) };
    },
    stop: () => running.stop(),
  };
}

/**
 * What a one-shot command says about the cards it leaves unembedded: how many, and what
 * embeds them. Undefined when nothing waits (or there is no embedder or no pgvector).
 */
export async function pendingNote(ctx: BrainContext, choice: EmbedderChoice): Promise<string | undefined> {
  if (!choice.embedder) return undefined;
  if ((await subjectsWithVectors(ctx.db, [ctx.subject.name])).length === 0) return undefined;
  const n = await countPending(ctx.db, ctx.subject.name, modelOf(choice.embedder));
  if (n === 0) return undefined;
  const s = ctx.subject.name;
  return `${n} card${n === 1 ? '' : 's'} of ${s} wait${n === 1 ? 's' : ''} to be embedded (${choice.embedder.model}); until then search finds ${n === 1 ? 'it' : 'them'} by keyword. A running server (brain up, brain serve) embeds them, or run: brain embed --stale --subject ${s}`;
}

/** What the MCP tools get: search deps, propose's planner, lint's embedding checks. */
export function subjectServices(ctx: BrainContext, choice: EmbedderChoice, logger: Logger, proposalTtlMinutes?: number, worker = true): { services: ServerServices; embedding: SubjectEmbedding } {
  const embedding = startSubjectEmbedding(ctx, choice, logger, worker);
  return {
    embedding,
    services: {
      search: embedding.deps,
      planner: searchPlanner(embedding.deps),
      ...(choice.embedder ? { lint: embeddingLintHooks(choice.embedder) } : {}),
      ...(proposalTtlMinutes ? { proposalTtlMinutes } : {}),
    },
  };
}
