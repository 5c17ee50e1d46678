import { z } from 'zod';
import { ingestDocument, raw } from '../../knowledge/index.js';
import { BrainError } from '../../knowledge/index.js';
import { guardJsonSize } from '../input-guard.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const ingestTool = defineTool({
  name: 'ingest',
  description:
    'Keep source material. With content: store a document (notes, article, transcript) verbatim, deduplicated; then distil it into cards and cite its id. With slug+source+data: store raw enrichment data for a card (one record per source).',
  inputSchema: (deps) =>
    z.object({
      content: z.string().optional(),
      title: z.string().optional(),
      uri: z.string().optional(),
      slug: slug.optional(),
      source: z.string().optional().describe('e.g. crustdata'),
      data: z.record(z.string(), z.unknown()).optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    if (a.data !== undefined || a.slug !== undefined) {
      if (!a.slug || !a.source || a.data === undefined) {
        throw new BrainError('invalid_input', 'raw data needs slug, source and data', 'Pass all three, or pass content to store a document.');
      }
      guardJsonSize('ingest', 'data', a.data);
      const rows = await raw(ctx, { subject: a.subject, slug: a.slug, source: a.source, data: a.data, reason: a.reason });
      return ok(`Stored raw data "${a.source}" for ${a.subject ?? ctx.subject.name}:${a.slug} (${rows.length} source(s) on the card).`);
    }
    if (!a.content) throw new BrainError('invalid_input', 'nothing to ingest', 'Pass content (a document) or slug+source+data (raw data).');
    const d = await ingestDocument(ctx, { subject: a.subject, content: a.content, title: a.title ?? '', uri: a.uri, reason: a.reason });
    return ok(`${d.created ? 'Stored' : 'Already stored'}: document ${d.id} in ${d.subject} (sha256 ${d.sha256.slice(0, 12)}).`);
  },
});
