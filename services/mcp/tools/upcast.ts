import { z } from 'zod';
import { upcast } from '../../knowledge/index.js';
import { upcastMarkdown } from '../format.js';
import { ok } from '../result.js';
import { slug } from './fields.js';
import { ADDITIVE, defineTool } from './types.js';

export const upcastTool = defineTool({
  name: 'upcast',
  title: 'Promote a project card into personal',
  description:
    'Copy generic knowledge from this project into personal (shared by every project), with a reason. Pass title/summary/body to upcast a generic version without project specifics; the deny-list refuses project words and PII.',
  inputSchema: () =>
    z.object({
      slug: slug.describe('the project card'),
      reason: z.string().trim().min(3).max(2000).describe('why it is generic'),
      personalSlug: slug.optional(),
      title: z.string().max(300).optional(),
      summary: z.string().max(1000).optional(),
      body: z.string().max(200_000).optional(),
    }),
  annotations: ADDITIVE,
  async run(a, { ctx }) {
    return ok(upcastMarkdown(await upcast(ctx, a)));
  },
});
