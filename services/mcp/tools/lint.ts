import { z } from 'zod';
import { lint, lintMarkdown } from '../../curation/lint.js';
import { ok } from '../result.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const lintTool = defineTool({
  name: 'lint',
  description:
    'Report orphans, dead links, unexplained upcasts, near-duplicate cards and tags, stale embeddings. apply can remove dead links, merge tags, re-queue embeddings; never deletes a card.',
  inputSchema: () =>
    z.object({
      apply: z.object({ deadLinks: z.boolean().optional(), mergeTags: z.boolean().optional(), requeueEmbeddings: z.boolean().optional() }).optional(),
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx, services }, extra) {
    const hooks = services.lint ?? {};
    const apply = { deadLinks: a.apply?.deadLinks ?? false, mergeTags: a.apply?.mergeTags ?? false, requeueEmbeddings: a.apply?.requeueEmbeddings ?? false };
    // The client's cancellation stops lint between batches; `brain call` passes no request context.
    const signal = (extra as Partial<typeof extra> | undefined)?.mcpReq?.signal;
    return ok(lintMarkdown(await lint(ctx, { apply }, hooks, { signal })));
  },
});
