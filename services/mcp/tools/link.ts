import { z } from 'zod';
import { linkTopics } from '../../knowledge/index.js';
import { linkLine } from '../format.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const linkTool = defineTool({
  name: 'link',
  description: 'Link one card to another (remove: unlink), with the sentence that justifies it. Project cards may link into personal.',
  inputSchema: (deps) =>
    z.object({
      from: slug,
      to: slug,
      subject: subjectField(deps).describe('where the from card lives'),
      toSubject: subjectField(deps).describe('where the target lives (default: same)'),
      relation: z.enum(['mentions', 'relates-to', 'supersedes', 'derived-from']).optional(),
      context: z.string().optional(),
      remove: z.boolean().optional(),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    const l = await linkTopics(ctx, { ...a, relation: a.relation ?? 'mentions', context: a.context ?? '', remove: a.remove ?? false });
    return ok(`${a.remove ? 'Removed' : 'Linked'}: ${linkLine(l)}`);
  },
});
