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
    /** A document to keep (deduplicated, as ingest does) and cite in the same transaction. */
    content: z.string().min(1).max(5_000_000).optional(),
    title: z.string().max(300).default(''),
    uri: z.string().max(2000).optional(),
    locator: z.string().max(500).default(''),
    quote: z.string().max(5000).default(''),
    reason,
  })
  .refine((v) => v.slug !== undefined || v.episodeId !== undefined, 'name the card (slug) or the episode (episodeId) this source is for')
  .refine((v) => v.documentId !== undefined || v.uri !== undefined || v.content !== undefined, 'name the source: a documentId from ingest, the document\'s content, or a uri')
  .refine((v) => v.documentId === undefined || v.content === undefined, 'pass a documentId or the content, not both');

export interface Source {
  id: number;
  documentId: number | null;
  /** The document's title, when the source is a stored document. */
  title?: string;
  uri: string | null;
  locator: string;
  quote: string;
}

export interface AddedSource extends Source {
  subject: string;
  /** false when the card (or episode) already cited exactly this. */
  created: boolean;
  /** Set when content was given: whether the document was new to the store. */
  documentCreated?: boolean;
}

/**
 * Cites a source on a card or an episode: a stored document (by id, or its content, kept
 * first as ingest keeps it), or a uri, with where in it (locator) and the words that count
 * (quote). Citing the same thing twice is one source. The card must be live (not archived).
 */
export async function addSource(ctx: BrainContext, raw: z.input<typeof addSourceInput>): Promise<AddedSource> {
  const input = parseInput(addSourceInput, raw, 'source');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  const sha256 = input.content === undefined ? undefined : createHash('sha256').update(input.content).digest('hex');
  try {
    return await write(ctx, { operation: 'add-source', reason: input.reason }, async (trx) => {
      const topicId = input.slug ? (await requireTopic(trx, subject, input.slug)).id : null;
      if (input.episodeId !== undefined) {
        const ep = await trx.withSchema(subject).selectFrom('episodes').select('id').where('id', '=', input.episodeId).executeTakeFirst();
        if (!ep) throw new BrainError('not_found', `no episode ${input.episodeId} in ${subject}`, "Read a card's timeline (get with include timeline) to find the episode's id.", { details: { field: 'episodeId' } });
      }
      let documentId = input.documentId ?? null;
      let documentCreated: boolean | undefined;
      if (input.content !== undefined) {
        const inserted = await trx
          .withSchema(subject)
          .insertInto('documents')
          .values({ content: input.content, sha256: sha256!, title: input.title, uri: input.uri ?? null })
          .onConflict((oc) => oc.column('sha256').doNothing())
          .returning('id')
          .executeTakeFirst();
        documentCreated = inserted !== undefined;
        documentId = inserted?.id ?? (await trx.withSchema(subject).selectFrom('documents').select('id').where('sha256', '=', sha256!).executeTakeFirstOrThrow()).id;
      } else if (documentId !== null) {
        const doc = await trx.withSchema(subject).selectFrom('documents').select('id').where('id', '=', documentId).executeTakeFirst();
        if (!doc) {
          throw new BrainError('not_found', `no document ${documentId} in ${subject}`, 'Store it first (ingest with content) and use the id it answers, or pass the content here.', {
            details: { field: 'documentId' },
          });
        }
      }
      // With a stored document, its uri lives on the document; the source row names the document.
      const uri = documentId !== null ? null : (input.uri ?? null);
      const existing = await trx
        .withSchema(subject)
        .selectFrom('sources')
        .select(['id', 'document_id', 'uri', 'locator', 'quote'])
        .where('locator', '=', input.locator)
        .where('quote', '=', input.quote)
        .where('topic_id', topicId === null ? 'is' : '=', topicId)
        .where('episode_id', input.episodeId === undefined ? 'is' : '=', input.episodeId ?? null)
        .where('document_id', documentId === null ? 'is' : '=', documentId)
        .where('uri', uri === null ? 'is' : '=', uri)
        .executeTakeFirst();
      const row =
        existing ??
        (await trx
          .withSchema(subject)
          .insertInto('sources')
          .values({ topic_id: topicId, episode_id: input.episodeId ?? null, document_id: documentId, uri, locator: input.locator, quote: input.quote })
          .returning(['id', 'document_id', 'uri', 'locator', 'quote'])
          .executeTakeFirstOrThrow());
      return {
        subject,
        id: row.id,
        documentId: row.document_id,
        uri: row.uri ?? input.uri ?? null,
        locator: row.locator,
        quote: row.quote,
        created: existing === undefined,
        ...(documentCreated !== undefined ? { documentCreated } : {}),
      };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, 'source');
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

/** A card's sources, oldest first, with the title and uri of each stored document. */
export async function sourcesOf(ctx: BrainContext, subject: string, topicId: number): Promise<Source[]> {
  const rows = await ctx.db
    .withSchema(subject)
    .selectFrom('sources as s')
    .leftJoin('documents as d', 'd.id', 's.document_id')
    .select(['s.id', 's.document_id', 's.uri', 's.locator', 's.quote', 'd.title', 'd.uri as document_uri'])
    .where('s.topic_id', '=', topicId)
    .orderBy('s.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    documentId: r.document_id,
    ...(r.title ? { title: r.title } : {}),
    uri: r.uri ?? r.document_uri ?? null,
    locator: r.locator,
    quote: r.quote,
  }));
}
