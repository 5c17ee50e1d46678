import { z } from 'zod';
import { raw } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const rawTool = defineTool({
  name: 'raw',
  title: 'Store raw enrichment data',
  description: 'Store a structured API response or other raw data for a card, one record per source (overwritten on re-enrichment). Keep the card itself distilled; read raw data with get include=raw.',
  inputSchema: (deps) =>
    z.object({
      slug,
      source: z.string().trim().min(1).max(100).describe('e.g. crustdata'),
      data: z.record(z.string(), z.unknown()),
      subject: subjectField(deps),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    const rows = await raw(ctx, a);
    return ok(`Stored raw data "${a.source}" for ${a.subject ?? ctx.subject.name}:${a.slug} (${rows.length} source(s) on the card).`);
  },
});
