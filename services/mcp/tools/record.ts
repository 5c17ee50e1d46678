import { z } from 'zod';
import { recordEpisode } from '../../knowledge/index.js';
import { episodeLine } from '../format.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { ADDITIVE, defineTool } from './types.js';

export const recordTool = defineTool({
  name: 'record',
  title: 'Record an episode',
  description:
    'Record what happened and when (an episode: work-session, incident, deploy, decision-made, meeting...), attached to the cards it concerns. Episodes are append-only evidence; use remember to change what a card says.',
  inputSchema: (deps) =>
    z.object({
      kind: z.string().max(60).describe('an episode kind; list what=kinds'),
      date: z.string().max(40).describe('YYYY-MM-DD or ISO timestamp'),
      title: z.string().max(300),
      summary: z.string().max(2000).optional(),
      detail: z.string().max(100_000).optional(),
      source: z.string().max(300).optional().describe('e.g. meeting, email, session'),
      topics: z.array(slug).max(50).optional().describe('slugs of cards this concerns'),
      subject: subjectField(deps),
      reason,
    }),
  annotations: ADDITIVE,
  async run(a, { ctx }) {
    const e = await recordEpisode(ctx, {
      subject: a.subject,
      kind: a.kind,
      occurredAt: a.date,
      title: a.title,
      summary: a.summary,
      detail: a.detail,
      sourceLabel: a.source,
      topics: a.topics,
      reason: a.reason,
    });
    return ok(`Recorded in ${e.subject}:\n${episodeLine(e)}${e.topics?.length ? `\nConcerns: ${e.topics.join(', ')}` : ''}`);
  },
});
