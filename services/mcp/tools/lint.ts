import { z } from 'zod';
import { lint, lintMarkdown, type LintEmbeddingHooks } from '../../curation/lint.js';
import { ok } from '../result.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const lintTool = defineTool({
  name: 'lint',
  title: 'Check the brain for problems',
  description:
    'Report orphan cards, dead links, upcasts without a reason, near-duplicate cards and tags, stale embeddings. Read-only unless apply is given: it can remove dead links, merge tag variants, re-queue embeddings. It never deletes a card.',
  inputSchema: () =>
    z.object({
      apply: z.object({ deadLinks: z.boolean().optional(), mergeTags: z.boolean().optional(), requeueEmbeddings: z.boolean().optional() }).optional(),
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx, services }) {
    const hooks = (services as { lint?: LintEmbeddingHooks }).lint ?? {};
    const apply = { deadLinks: a.apply?.deadLinks ?? false, mergeTags: a.apply?.mergeTags ?? false, requeueEmbeddings: a.apply?.requeueEmbeddings ?? false };
    return ok(lintMarkdown(await lint(ctx, { apply }, hooks)));
  },
});
