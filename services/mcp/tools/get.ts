import { z } from 'zod';
import { getTopic, INCLUDES } from '../../knowledge/index.js';
import { topicMarkdown } from '../format.js';
import { ok } from '../result.js';
import { slug, subjectField } from './fields.js';
import { defineTool, READ_ONLY } from './types.js';

export const getTool = defineTool({
  name: 'get',
  description: 'Read one card by slug; include only the extra parts you need.',
  inputSchema: (deps) =>
    z.object({
      slug,
      subject: subjectField(deps),
      include: z.array(z.enum(INCLUDES)).optional(),
    }),
  annotations: READ_ONLY,
  async run(args, { ctx }) {
    return ok(topicMarkdown(await getTopic(ctx, { slug: args.slug, subject: args.subject, include: args.include ?? [] })));
  },
});
