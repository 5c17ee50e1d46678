import { z } from 'zod';
import { renamedLines } from '../../knowledge/index.js';
import { remember } from '../../search/index.js';
import { ok } from '../result.js';
import { reason, subjectField } from './fields.js';
import { ADDITIVE, defineTool } from './types.js';

export const rememberTool = defineTool({
  name: 'remember',
  description:
    'Write a topic card with search before add: the same thing already in the brain is updated (append or replace); a possible duplicate is flagged; related cards get a link; otherwise a new card. forceNew (with a reason) creates one despite a match.',
  inputSchema: (deps) =>
    z.object({
      kind: z.string(),
      title: z.string(),
      body: z.string().optional(),
      summary: z.string().optional(),
      slug: z.string().optional(),
      tags: z.array(z.string()).optional(),
      mode: z.enum(['append', 'replace']).optional(),
      forceNew: z.boolean().optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: ADDITIVE,
  async run(a, { ctx, services }) {
    const r = await remember(ctx, a, services.search ?? {});
    const what = {
      updated: r.changed ? 'Updated' : 'Unchanged (already said)',
      'created-flagged': 'Created, but it may be a card that already exists',
      'created-linked': 'Created, linked to related cards',
      'created-island': 'Created (nothing related found)',
      'created-forced': 'Created despite a match (forced)',
    }[r.action];
    const lines = [`${what}: ${r.card.subject}:${r.card.slug} · ${r.card.kind} · ${r.card.title}`];
    for (const d of r.possibleDuplicates) {
      lines.push(`Possible duplicate: ${d.subject}:${d.slug} "${d.title}" (p ${d.score}). If it is the same thing, ask the person, then archive one with into: the other (histories are kept).`);
    }
    if (r.linkedTo.length) lines.push(`Links: ${r.linkedTo.map((l) => `${l.subject}:${l.slug}`).join(', ')}`);
    const weighed = r.candidates.slice(0, 5).map((c) => `${c.subject}:${c.slug} (${c.verdict} ${c.score})`);
    if (weighed.length) lines.push(`Weighed: ${weighed.join(', ')}`);
    lines.push(...renamedLines(r.renamedTags));
    for (const w of r.warnings) lines.push(`Note: ${w}`);
    return ok(lines.join('\n'));
  },
});
