import { z } from 'zod';
import { tagTopic } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const tagTool = defineTool({
  name: 'tag',
  description: 'Tag a card (remove: untag). Reuse existing tags (list what=tags).',
  inputSchema: (deps) =>
    z.object({
      slug,
      tags: z.array(z.string()),
      remove: z.boolean().optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    const tags = await tagTopic(ctx, { ...a, remove: a.remove ?? false });
    return ok(`Tags of ${a.subject ?? ctx.subject.name}:${a.slug}: ${tags.join(', ') || '(none)'}`);
  },
});
