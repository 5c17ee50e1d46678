import { z } from 'zod';
import { upcast } from '../../knowledge/index.js';
import { upcastMarkdown } from '../format.js';
import { ok } from '../result.js';
import { slug } from './fields.js';
import { ADDITIVE, defineTool } from './types.js';

export const upcastTool = defineTool({
  name: 'upcast',
  description:
    'Promote generic knowledge from this project into personal, with a reason. Pass title/summary/body for a version without project specifics; the deny-list refuses project words and PII.',
  inputSchema: () =>
    z.object({
      slug: slug.describe('the project card'),
      reason: z.string().describe('why it is generic'),
      personalSlug: slug.optional(),
      title: z.string().optional(),
      summary: z.string().optional(),
      body: z.string().optional(),
    }),
  annotations: ADDITIVE,
  async run(a, { ctx }) {
    return ok(upcastMarkdown(await upcast(ctx, a)));
  },
});
