import { z } from 'zod';
import { search, type SearchHit } from '../../search/index.js';
import { ok } from '../result.js';
import { subjectField } from './fields.js';
import { defineTool, READ_ONLY } from './types.js';

function hitLine(h: SearchHit): string {
  const ref = h.slug ? `${h.subject}:${h.slug}` : `${h.subject} episode #${h.id}${h.occurredAt ? ` (${h.occurredAt.slice(0, 10)})` : ''}`;
  return `- [${h.matchedBy}] ${ref} · ${h.kind} · ${h.title}${h.snippet ? `\n  ${h.snippet.replace(/\s+/g, ' ')}` : ''}`;
}

export const searchTool = defineTool({
  name: 'search',
  description:
    'Find what the brain knows: natural-language questions, names, "quoted phrases", -exclusions. Hybrid (keyword + meaning) by default; budgetTokens packs the best passages to fit. Covers this subject and personal.',
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
    }),
  annotations: READ_ONLY,
  async run(a, { ctx, services }) {
    const r = await search(ctx, a, services.search ?? {});
    const lines = r.hits.length ? r.hits.map(hitLine) : ['No matches.'];
    if (r.omittedForBudget) lines.push(`(${r.omittedForBudget} more left out to fit the budget)`);
    for (const w of r.warnings) lines.push(`Note: ${w}`);
    if (r.mode !== 'keyword' && r.pendingEmbeddings) lines.push(`Note: ${r.pendingEmbeddings} card(s) are not embedded yet; matches by meaning may be missing until the worker catches up.`);
    return ok(`${r.mode} search:\n${lines.join('\n')}`);
  },
});
