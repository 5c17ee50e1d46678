// The embedder a brain runs with (Ollama when it answers, else the built-in offline one),
// created once per process and shared by its subjects, and one embedding worker per
// subject, embedding only that subject's own cards. Writes never wait for any of it.
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../../config/runtime.js';
import type { Embedder } from '../embeddings/embedder.js';
import { createEmbedder } from '../embeddings/select.js';
import type { BrainContext } from '../knowledge/index.js';
import { startEmbedWorker, type EmbedWorker, type SearchDeps } from '../search/index.js';
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

export function startSubjectEmbedding(ctx: BrainContext, choice: EmbedderChoice, logger: Logger): SubjectEmbedding {
  if (!choice.embedder) {
    return { deps: {}, report: () => ({ state: 'off', detail: choice.reason }), stop: async () => undefined };
  }
  const worker: EmbedWorker = startEmbedWorker({ ctx, embedder: choice.embedder, batchSize: 16, pollMs: 2_000, logger: logger.child({ subject: ctx.subject.name, part: 'embedder' }) });
  return {
    deps: {
      embedder: choice.embedder,
      get embedderStatus() {
        return worker.status();
      },
    },
    report: () => {
      const s = worker.status();
      return { state: s.state, pending: s.pending, model: s.model, ...(s.lastError ? { detail: s.lastError } : { detail: choice.reason }) };
    },
    stop: () => worker.stop(),
  };
}

/** What the MCP tools get: search deps, propose's planner, lint's embedding checks. */
export function subjectServices(ctx: BrainContext, choice: EmbedderChoice, logger: Logger, proposalTtlMinutes?: number): { services: ServerServices; embedding: SubjectEmbedding } {
  const embedding = startSubjectEmbedding(ctx, choice, logger);
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
