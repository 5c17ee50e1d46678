import { z } from 'zod';
import { addSource, ingestDocument, raw } from '../../knowledge/index.js';
import { BrainError } from '../../knowledge/index.js';
import { guardJsonSize } from '../input-guard.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const ingestTool = defineTool({
  name: 'ingest',
  description:
    'Keep source material. content: store a document verbatim (deduplicated). slug with content, documentId or uri: cite it as the card\'s source. slug+source+data: raw enrichment data.',
  inputSchema: (deps) =>
    z.object({
      content: z.string().optional(),
      title: z.string().optional(),
      uri: z.string().optional(),
      slug: slug.optional(),
      documentId: z.number().optional(),
      locator: z.string().optional(),
      quote: z.string().optional(),
      source: z.string().optional().describe('e.g. crustdata'),
      data: z.record(z.string(), z.unknown()).optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    if (a.data !== undefined || a.source !== undefined) {
      if (!a.slug || !a.source || a.data === undefined) {
        throw new BrainError('invalid_input', 'raw data needs slug, source and data', 'Pass all three, or pass content to store a document.');
      }
      guardJsonSize('ingest', 'data', a.data);
      const rows = await raw(ctx, { subject: a.subject, slug: a.slug, source: a.source, data: a.data, reason: a.reason });
      return ok(`Stored raw data "${a.source}" for ${a.subject ?? ctx.subject.name}:${a.slug} (${rows.length} source(s) on the card).`);
    }
    if (a.slug !== undefined) {
      // A citation: the card's provenance, shown by get with include sources.
      const s = await addSource(ctx, { subject: a.subject, slug: a.slug, documentId: a.documentId, content: a.content, title: a.title ?? '', uri: a.uri, locator: a.locator ?? '', quote: a.quote ?? '', reason: a.reason });
      const what = s.documentId !== null ? `document ${s.documentId}${s.documentCreated === true ? ' (stored now)' : ''}` : String(s.uri);
      return ok(`${s.created ? 'Cited' : 'Already cited'}: ${what} as a source of ${s.subject}:${a.slug}${s.locator ? ` @ ${s.locator}` : ''}.`);
    }
    if (a.documentId !== undefined || a.locator !== undefined || a.quote !== undefined) {
      throw new BrainError('invalid_input', 'ingest: documentId, locator and quote cite a source on a card; slug is missing', 'Pass slug (the card the source is for).', { details: { field: 'slug' } });
    }
    if (!a.content) throw new BrainError('invalid_input', 'nothing to ingest', 'Pass content (a document), slug with content, documentId or uri (a citation), or slug+source+data (raw data).');
    const d = await ingestDocument(ctx, { subject: a.subject, content: a.content, title: a.title ?? '', uri: a.uri, reason: a.reason });
    return ok(`${d.created ? 'Stored' : 'Already stored'}: document ${d.id} in ${d.subject} (sha256 ${d.sha256.slice(0, 12)}).`);
  },
});
