// `brain ingest`: a source document stored verbatim (deduplicated by sha256, like
// ingestDocument) and an ingest record (GBrain's ingest_log) in one transaction.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { write, type BrainContext } from '../knowledge/context.js';
import { BrainError, fromDatabaseError } from '../knowledge/errors.js';
import { parseInput, reason } from '../knowledge/schemas.js';

export const INGEST_TYPES = ['meeting', 'article', 'doc', 'conversation'] as const;

export const ingestFileInput = z.object({
  content: z.string().min(1, 'the file is empty').max(5_000_000),
  type: z.enum(INGEST_TYPES).default('doc'),
  title: z.string().max(300).default(''),
  /** Where it came from: a path or URL, recorded as the source reference. */
  ref: z.string().max(2000),
  mediaType: z.string().max(100).default('text/markdown'),
  reason,
});

export interface IngestResult {
  documentId: number;
  sha256: string;
  /** false when the same bytes were ingested before (the document is reused). */
  created: boolean;
  logId: number;
}

export async function ingestFile(ctx: BrainContext, raw: z.input<typeof ingestFileInput>): Promise<IngestResult> {
  const input = parseInput(ingestFileInput, raw, 'ingest');
  const subject = ctx.subject.name;
  const sha256 = createHash('sha256').update(input.content).digest('hex');
  try {
    return await write(ctx, { operation: 'ingest', reason: input.reason }, async (trx) => {
      const s = trx.withSchema(subject);
      const inserted = await s
        .insertInto('documents')
        .values({ content: input.content, sha256, title: input.title, uri: input.ref, media_type: input.mediaType })
        .onConflict((oc) => oc.column('sha256').doNothing())
        .returning('id')
        .executeTakeFirst();
      const documentId = inserted?.id ?? (await s.selectFrom('documents').select('id').where('sha256', '=', sha256).executeTakeFirstOrThrow()).id;
      const log = await s
        .insertInto('gbrain_ingest_log')
        .values({ origin: 'cli', logged_at: new Date(), date_only: false, source_type: input.type, source_ref: input.ref, summary: input.title, document_id: documentId, line: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { documentId, sha256, created: inserted !== undefined, logId: log.id };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, 'ingest');
  }
}
