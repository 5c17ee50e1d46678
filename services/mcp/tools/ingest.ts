import { z } from 'zod';
import { ingestDocument } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, subjectField } from './fields.js';
import { defineTool, IDEMPOTENT_WRITE } from './types.js';

export const ingestTool = defineTool({
  name: 'ingest',
  title: 'Keep a source document',
  description:
    'Store a source text (meeting notes, article, transcript) verbatim in the documents store, deduplicated by hash. Then distil it: remember cards, record episodes, and cite the document id.',
  inputSchema: (deps) =>
    z.object({
      content: z.string().min(1).max(2_000_000),
      title: z.string().max(300).optional(),
      uri: z.string().max(2000).optional(),
      mediaType: z.string().max(100).optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: IDEMPOTENT_WRITE,
  async run(a, { ctx }) {
    const d = await ingestDocument(ctx, { ...a, title: a.title ?? '', mediaType: a.mediaType ?? 'text/markdown' });
    return ok(`${d.created ? 'Stored' : 'Already stored'}: document ${d.id} in ${d.subject} (sha256 ${d.sha256.slice(0, 12)}).`);
  },
});
