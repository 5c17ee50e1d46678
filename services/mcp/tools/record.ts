import { z } from 'zod';
import { recordEpisode } from '../../knowledge/index.js';
import { occurredAt } from '../../knowledge/schemas.js';
import { episodeLine } from '../format.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { ADDITIVE, defineTool } from './types.js';

export const recordTool = defineTool({
  name: 'record',
  description:
    'Record an episode (what happened, when), attached to the cards it concerns. Append-only evidence; remember changes what a card says.',
  inputSchema: (deps) =>
    z.object({
      kind: z.string().describe('an episode kind; list what=kinds'),
      // The domain's own date shape, so a bad date is named "date", as this tool spells it.
      date: occurredAt.describe('YYYY-MM-DD or ISO timestamp'),
      title: z.string(),
      summary: z.string().optional(),
      detail: z.string().optional(),
      source: z.string().optional().describe('e.g. meeting, email, session'),
      topics: z.array(slug).optional().describe('slugs of cards this concerns'),
      subject: subjectField(deps),
      reason,
    }),
  annotations: ADDITIVE,
  fieldNames: { occurredAt: 'date', sourceLabel: 'source' },
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
