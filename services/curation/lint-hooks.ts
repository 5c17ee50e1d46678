// Lint's embedding checks, where this subject has embeddings: near-duplicate cards by the
// cosine similarity of their first chunks (same model only), stale embeddings counted,
// and a re-queue that makes the subject's worker embed everything again.
import { sql } from 'kysely';
import type { Embedder } from '../embeddings/embedder.js';
import type { BrainContext } from '../knowledge/index.js';
import { countPending, subjectsWithVectors } from '../search/index.js';
import { modelOf } from '../search/embed-cards.js';
import type { LintEmbeddingHooks } from './lint.js';

export function embeddingLintHooks(embedder: Embedder): LintEmbeddingHooks {
  const m = modelOf(embedder);
  const hasVectors = async (ctx: BrainContext) => (await subjectsWithVectors(ctx.db, [ctx.subject.name])).length > 0;
  return {
    async similarPairs(ctx, threshold, limit) {
      if (!(await hasVectors(ctx))) return [];
      const chunks = sql.table(`${ctx.subject.name}.chunks`);
      const topics = sql.table(`${ctx.subject.name}.topics`);
      const rows = await sql<{ a: string; b: string; similarity: number }>`
        SELECT ta.slug AS a, tb.slug AS b, round((1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding))::numeric, 2)::float AS similarity
          FROM ${chunks} ca JOIN ${chunks} cb ON ca.topic_id < cb.topic_id AND cb.chunk_index = 0 AND cb.model = ca.model
          JOIN ${topics} ta ON ta.id = ca.topic_id JOIN ${topics} tb ON tb.id = cb.topic_id
         WHERE ca.chunk_index = 0 AND ca.model = ${m.model} AND ca.dims = ${m.dims}
           AND 1 - (ca.embedding OPERATOR(brain_ext.<=>) cb.embedding) >= ${threshold}
         ORDER BY similarity DESC LIMIT ${limit}`.execute(ctx.db);
      return rows.rows;
    },
    async staleCount(ctx) {
      return (await hasVectors(ctx)) ? countPending(ctx.db, ctx.subject.name, m) : 0;
    },
    async requeue(ctx) {
      if (!(await hasVectors(ctx))) return 0;
      const r = await sql`DELETE FROM ${sql.table(`${ctx.subject.name}.embedding_state`)} WHERE model = ${m.model}`.execute(ctx.db);
      return Number(r.numAffectedRows ?? 0);
    },
  };
}
