// Provenance and the raw layer: ingested documents (kept verbatim, deduplicated by
// sha256), source pointers from cards and episodes, and raw enrichment data per card.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { requireUpcastReason, targetSubject, write, type BrainContext } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { parseInput, reason, slug, subjectRef } from './schemas.js';
import { requireTopic } from './topics.js';

export const ingestDocumentInput = z.object({
  subject: subjectRef,
  content: z.string().min(1).max(5_000_000),
  title: z.string().max(300).default(''),
  uri: z.string().max(2000).optional(),
  mediaType: z.string().max(100).default('text/markdown'),
  fetchedAt: z.string().datetime({ offset: true }).optional(),
  reason,
});

export interface StoredDocument {
  subject: string;
  id: number;
  sha256: string;
  created: boolean;
}

export async function ingestDocument(ctx: BrainContext, raw: z.input<typeof ingestDocumentInput>): Promise<StoredDocument> {
  const input = parseInput(ingestDocumentInput, raw, 'ingest document');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  const sha256 = createHash('sha256').update(input.content).digest('hex');
  try {
    return await write(ctx, { operation: 'ingest', reason: input.reason }, async (trx) => {
      const inserted = await trx
        .withSchema(subject)
        .insertInto('documents')
        .values({ content: input.content, sha256, title: input.title, uri: input.uri ?? null, media_type: input.mediaType, ...(input.fetchedAt ? { fetched_at: input.fetchedAt } : {}) })
        .onConflict((oc) => oc.column('sha256').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) return { subject, id: inserted.id, sha256, created: true };
      const existing = await trx.withSchema(subject).selectFrom('documents').select('id').where('sha256', '=', sha256).executeTakeFirstOrThrow();
      return { subject, id: existing.id, sha256, created: false };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, 'ingest document');
  }
}

export const addSourceInput = z
  .object({
    subject: subjectRef,
    slug: slug.optional(),
    episodeId: z.number().int().positive().optional(),
    documentId: z.number().int().positive().optional(),
    uri: z.string().max(2000).optional(),
    locator: z.string().max(500).default(''),
    quote: z.string().max(5000).default(''),
    reason,
  })
  .refine((v) => v.slug !== undefined || v.episodeId !== undefined, 'name the card (slug) or the episode (episodeId) this source is for')
  .refine((v) => v.documentId !== undefined || v.uri !== undefined, 'name the source: a documentId from ingest, or a uri');

export interface Source {
  id: number;
  documentId: number | null;
  uri: string | null;
  locator: string;
  quote: string;
}

export async function addSource(ctx: BrainContext, raw: z.input<typeof addSourceInput>): Promise<Source> {
  const input = parseInput(addSourceInput, raw, 'add source');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  try {
    return await write(ctx, { operation: 'add-source', reason: input.reason }, async (trx) => {
      const topicId = input.slug ? (await requireTopic(trx, subject, input.slug)).id : null;
      const row = await trx
        .withSchema(subject)
        .insertInto('sources')
        .values({ topic_id: topicId, episode_id: input.episodeId ?? null, document_id: input.documentId ?? null, uri: input.uri ?? null, locator: input.locator, quote: input.quote })
        .returning(['id', 'document_id', 'uri', 'locator', 'quote'])
        .executeTakeFirstOrThrow();
      return { id: row.id, documentId: row.document_id, uri: row.uri, locator: row.locator, quote: row.quote };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, 'add source');
  }
}

export const rawInput = z.object({ subject: subjectRef, slug, source: z.string().trim().min(1).max(100).optional(), data: z.unknown().optional(), reason });

export interface RawData {
  source: string;
  data: unknown;
  fetchedAt: string;
}

/** Reads raw data of a card (one source or all), or with `data` stores it (one row per source, overwritten). */
export async function raw(ctx: BrainContext, rawArgs: z.input<typeof rawInput>): Promise<RawData[]> {
  const input = parseInput(rawInput, rawArgs, 'raw');
  const subject = targetSubject(ctx, input.subject);
  if (input.data !== undefined) {
    if (!input.source) throw new BrainError('invalid_input', 'raw: storing data needs a source name', 'Pass source, e.g. "crustdata".');
    requireUpcastReason(ctx, subject, input.reason);
    const source = input.source;
    const json = JSON.stringify(input.data);
    try {
      await write(ctx, { operation: 'raw', reason: input.reason }, async (trx) => {
        const topic = await requireTopic(trx, subject, input.slug);
        await trx
          .withSchema(subject)
          .insertInto('raw_data')
          .values({ topic_id: topic.id, source, data: json })
          .onConflict((oc) => oc.columns(['topic_id', 'source']).doUpdateSet({ data: json, fetched_at: new Date() }))
          .execute();
      });
    } catch (error) {
      if (error instanceof BrainError) throw error;
      return fromDatabaseError(error, `raw data for "${input.slug}"`);
    }
  }
  const topic = await requireTopic(ctx.db, subject, input.slug);
  let q = ctx.db.withSchema(subject).selectFrom('raw_data').select(['source', 'data', 'fetched_at']).where('topic_id', '=', topic.id);
  if (input.source) q = q.where('source', '=', input.source);
  const rows = await q.orderBy('source').execute();
  return rows.map((r) => ({ source: r.source, data: r.data, fetchedAt: new Date(r.fetched_at).toISOString() }));
}

export async function sourcesOf(ctx: BrainContext, subject: string, topicId: number): Promise<Source[]> {
  const rows = await ctx.db.withSchema(subject).selectFrom('sources').select(['id', 'document_id', 'uri', 'locator', 'quote']).where('topic_id', '=', topicId).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, documentId: r.document_id, uri: r.uri, locator: r.locator, quote: r.quote }));
}
