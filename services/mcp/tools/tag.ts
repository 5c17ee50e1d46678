import { z } from 'zod';
import { tagTopic } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const tagTool = defineTool({
  name: 'tag',
  title: 'Tag or untag a card',
  description: 'Add tags to a card (or remove them with remove: true). Reuse existing tags (list what=tags) rather than near-synonyms.',
  inputSchema: (deps) =>
    z.object({
      slug,
      tags: z.array(z.string().trim().min(1).max(100)).min(1).max(50),
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
