import { z } from 'zod';
import { renamedLines, tagTopic } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const tagTool = defineTool({
  name: 'tag',
  description: 'Tag a card (remove: untag). Reuse existing tags (list what=tags); tags are stored lowercase, words joined by -.',
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
    const r = await tagTopic(ctx, { ...a, remove: a.remove ?? false });
    const renamed = a.remove ? r.renamed.map((x) => `Untagged ${JSON.stringify(x.to)} (from ${JSON.stringify(x.from)})`) : renamedLines(r.renamed);
    return ok([...renamed, `Tags of ${a.subject ?? ctx.subject.name}:${a.slug}: ${r.tags.join(', ') || '(none)'}`].join('\n'));
  },
});
