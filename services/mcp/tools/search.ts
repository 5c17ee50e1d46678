import { z } from 'zod';
import { renderSearchAnswer, search } from '../../search/index.js';
import { ok } from '../result.js';
import { subjectField } from './fields.js';
import { defineTool, READ_ONLY } from './types.js';

export const searchTool = defineTool({
  name: 'search',
  description:
    'Find what the brain knows: natural-language questions, names, "quoted phrases", -exclusions. Hybrid (keyword + meaning) by default. Each hit has a relevance (0-1); weak matches are left out, and a question the brain cannot answer gets "Nothing relevant found". budgetTokens caps the whole answer. Covers this subject and personal.',
  inputSchema: (deps) =>
    z.object({
      query: z.string(),
      mode: z.enum(['hybrid', 'keyword', 'semantic']).optional(),
      kinds: z.array(z.string()).optional(),
      tags: z.array(z.string()).optional(),
      since: z.string().optional(),
      until: z.string().optional(),
      subject: subjectField(deps),
      limit: z.number().int().optional(),
      budgetTokens: z.number().int().optional(),
      minRelevance: z.number().optional(),
    }),
  annotations: READ_ONLY,
  async run(a, { ctx, services }) {
    return ok(renderSearchAnswer(await search(ctx, a, services.search ?? {})));
  },
});
