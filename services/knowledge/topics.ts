// Topic cards: what something is. Create, update (replace or append the body), get with
// whatever the caller asks for, list with filters. Cards are archived, never deleted (archive.ts).
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import type { TopicRow } from '../../db/tables/topics.table.js';
import { requireUpcastReason, targetSubject, write, type BrainContext, type Db, type Trx } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { assertKind } from './kinds.js';
import { frontmatter, kindName, parseInput, reason, slug, subjectRef, tag } from './schemas.js';
import { addTags, normaliseTag } from './tags.js';

export interface Topic {
  subject: string;
  id: number;
  slug: string;
  kind: string;
  title: string;
  summary: string;
  body: string;
  timeline: string;
  frontmatter: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /** Set only on an archived card (see archive.ts); archived cards are not shown by get, list or search. */
  archivedAt?: string;
  /** The survivor's slug, when a merge archived this card. */
  mergedInto?: string;
}

export function toTopic(subject: string, row: TopicRow): Topic {
  return {
    subject,
    id: row.id,
    slug: row.slug,
    kind: row.kind,
    title: row.title,
    summary: row.summary,
    body: row.body,
    timeline: row.timeline,
    frontmatter: row.frontmatter ?? {},
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    ...(row.archived_at ? { archivedAt: new Date(row.archived_at).toISOString() } : {}),
    ...(row.merged_into ? { mergedInto: row.merged_into } : {}),
  };
}

const TOPIC_COLUMNS = ['id', 'slug', 'kind', 'kind_class', 'title', 'summary', 'body', 'timeline', 'frontmatter', 'created_at', 'updated_at', 'archived_at', 'merged_into'] as const;

export const createTopicInput = z.object({
  subject: subjectRef,
  slug,
  kind: kindName,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(1000).default(''),
  body: z.string().max(200_000).default(''),
  timeline: z.string().max(200_000).default(''),
  frontmatter: frontmatter.default({}),
  tags: z.array(tag).max(50).default([]),
  reason,
});
export type CreateTopicInput = z.input<typeof createTopicInput>;

/** The card holding a slug, archived or not (a slug stays taken while its card is archived). */
export async function findTopic(db: Db | Trx, subject: string, topicSlug: string): Promise<TopicRow | undefined> {
  return db.withSchema(subject).selectFrom('topics').select(TOPIC_COLUMNS).where('slug', '=', topicSlug).executeTakeFirst();
}

/**
 * Reads a card and locks its row until the transaction ends (SELECT ... FOR UPDATE), so a
 * read-modify-write (append, timeline merge) sees every write committed before it and no
 * concurrent writer can slip in between. A project role may lock personal's cards: the
 * lock needs UPDATE, which the upcast grants give (db/grants/upcast.sql).
 */
export async function lockTopic(trx: Trx, subject: string, topicSlug: string): Promise<TopicRow | undefined> {
  return trx.withSchema(subject).selectFrom('topics').select(TOPIC_COLUMNS).where('slug', '=', topicSlug).forUpdate().executeTakeFirst();
}

function notFound(subject: string, topicSlug: string): BrainError {
  return new BrainError('not_found', `no topic "${topicSlug}" in ${subject}`, 'Search first (search tool) to find the right slug, or create the card.');
}

/**
 * The answer for an archived card, to a read (not_found: it is not there to be read, and the
 * message says where it went) or a write (conflict: nothing is written into an archived card,
 * which would hide the write). A merged card points at its survivor.
 */
export function archivedError(subject: string, row: Pick<TopicRow, 'slug' | 'archived_at' | 'merged_into'>, use: 'read' | 'write' = 'read'): BrainError {
  const name = `${subject}:${row.slug}`;
  const since = row.archived_at ? new Date(row.archived_at).toISOString().slice(0, 10) : '';
  const back = `to bring it back, unarchive it (archive with slug "${row.slug}" and unarchive: true; brain unarchive ${row.slug})`;
  const message = row.merged_into ? `${name} was merged into ${subject}:${row.merged_into} on ${since}` : `${name} is archived (since ${since})`;
  const hint = row.merged_into
    ? `${use === 'read' ? 'Read' : 'Write to'} ${subject}:${row.merged_into} instead (slug "${row.merged_into}"); ${back}.`
    : `${use === 'read' ? 'It is kept with its history (history tool)' : 'Nothing was written'}; ${back}${use === 'write' ? ', or use another slug' : ''}.`;
  return new BrainError(use === 'read' ? 'not_found' : 'conflict', message, hint, { details: { field: 'slug', archived: true, ...(row.merged_into ? { mergedInto: row.merged_into } : {}) } });
}

/** A live card: an archived one answers with archivedError, a missing one with not_found. */
export async function requireTopic(db: Db | Trx, subject: string, topicSlug: string): Promise<TopicRow> {
  const row = await findTopic(db, subject, topicSlug);
  if (!row) throw notFound(subject, topicSlug);
  if (row.archived_at) throw archivedError(subject, row);
  return row;
}

/** requireTopic, with the row locked for a read-modify-write (see lockTopic). */
export async function requireLockedTopic(trx: Trx, subject: string, topicSlug: string): Promise<TopicRow> {
  const row = await lockTopic(trx, subject, topicSlug);
  if (!row) throw notFound(subject, topicSlug);
  if (row.archived_at) throw archivedError(subject, row, 'write');
  return row;
}

/** Inserts a topic and its tags inside an open transaction. */
export async function insertTopic(trx: Trx, subject: string, input: z.output<typeof createTopicInput>): Promise<TopicRow> {
  const row = await insertTopicIfAbsent(trx, subject, input);
  if (!row) throw new BrainError('already_exists', `topic "${input.slug}" already exists in ${subject}`, 'Update it instead (update tool), or pick another slug.');
  return row;
}

/**
 * Inserts a topic and its tags unless a card with its slug exists, in which case nothing
 * is written and undefined comes back. A concurrent insert of the same slug is waited
 * for (INSERT ... ON CONFLICT (slug) DO NOTHING), so the loser of a create race learns
 * that the card exists and can update it (lockTopic sees it: a new statement, a new
 * snapshot). Only BEFORE INSERT triggers without side effects run for the skipped row:
 * no outbox or version row comes of it.
 */
export async function insertTopicIfAbsent(trx: Trx, subject: string, input: z.output<typeof createTopicInput>): Promise<TopicRow | undefined> {
  const row = await trx
    .withSchema(subject)
    .insertInto('topics')
    .values({
      slug: input.slug,
      kind: input.kind,
      title: input.title,
      summary: input.summary,
      body: input.body,
      timeline: input.timeline,
      frontmatter: JSON.stringify(input.frontmatter),
    })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returning(TOPIC_COLUMNS)
    .executeTakeFirst();
  if (!row) return undefined;
  await addTags(trx, subject, row.id, input.tags);
  return row;
}

export async function createTopic(ctx: BrainContext, raw: CreateTopicInput, operation = 'create'): Promise<Topic> {
  const input = parseInput(createTopicInput, raw, 'create topic');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  assertKind(ctx, input.kind, 'topic');
  try {
    return await write(ctx, { operation, reason: input.reason }, async (trx) => toTopic(subject, await insertTopic(trx, subject, input)));
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `create topic "${input.slug}"`);
  }
}

export const updateTopicInput = z.object({
  subject: subjectRef,
  slug,
  title: z.string().trim().min(1).max(300).optional(),
  kind: kindName.optional(),
  summary: z.string().max(1000).optional(),
  body: z.string().max(200_000).optional(),
  /** replace: the body becomes `body`; append: `body` is added as a new paragraph. */
  bodyMode: z.enum(['replace', 'append']).default('replace'),
  timeline: z.string().max(200_000).optional(),
  frontmatter: frontmatter.optional(),
  reason,
});
export type UpdateTopicInput = z.input<typeof updateTopicInput>;

/**
 * The body with `addition` appended as a new paragraph, unless the body already says it
 * (contains it verbatim, as upcast and merge also judge): remember with the same text and a
 * new summary must change the summary, not repeat the text.
 */
export function appendBody(body: string, addition: string): string {
  const add = addition.trim();
  if (!add || body.includes(add)) return body;
  return body.trim() ? `${body.replace(/\s+$/, '')}\n\n${add}` : add;
}

/**
 * Updates a card inside an open transaction; the row is locked first, so an append never loses a
 * concurrent one. A caller that has already locked it in this transaction passes the row (`locked`)
 * instead of a second SELECT ... FOR UPDATE.
 */
export async function updateTopicIn(trx: Trx, subject: string, input: z.output<typeof updateTopicInput>, locked?: TopicRow): Promise<TopicRow> {
  const current = locked ?? (await requireLockedTopic(trx, subject, input.slug));
  // Every update path (remember, put, upcast, timeline) lands here: an archived card is not written to.
  if (current.archived_at) throw archivedError(subject, current, 'write');
  const body = input.body === undefined ? current.body : input.bodyMode === 'append' ? appendBody(current.body, input.body) : input.body;
  return trx
    .withSchema(subject)
    .updateTable('topics')
    .set({
      title: input.title ?? current.title,
      kind: input.kind ?? current.kind,
      summary: input.summary ?? current.summary,
      body,
      timeline: input.timeline ?? current.timeline,
      frontmatter: input.frontmatter ? JSON.stringify(input.frontmatter) : JSON.stringify(current.frontmatter ?? {}),
    })
    .where('id', '=', current.id)
    .returning(TOPIC_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function updateTopic(ctx: BrainContext, raw: UpdateTopicInput, operation = 'update'): Promise<Topic> {
  const input = parseInput(updateTopicInput, raw, 'update topic');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  if (input.kind) assertKind(ctx, input.kind, 'topic');
  try {
    return await write(ctx, { operation, reason: input.reason }, async (trx) => toTopic(subject, await updateTopicIn(trx, subject, input)));
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `update topic "${input.slug}"`);
  }
}

export const listTopicsInput = z.object({
  subject: subjectRef,
  kind: kindName.optional(),
  tag: tag.optional(),
  updatedSince: z.string().datetime({ offset: true }).or(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)).optional(),
  limit: z.number().int().min(1).max(500).default(50),
  offset: z.number().int().min(0).default(0),
});

export interface TopicSummary {
  subject: string;
  slug: string;
  kind: string;
  title: string;
  summary: string;
  updatedAt: string;
}

/** Lists cards of this subject, or of personal when asked (a project sees both, never another project). */
export async function listTopics(ctx: BrainContext, raw: z.input<typeof listTopicsInput>): Promise<TopicSummary[]> {
  const input = parseInput(listTopicsInput, raw, 'list topics');
  const subject = targetSubject(ctx, input.subject);
  // A kind that does not exist is a mistake to name, not an empty answer.
  if (input.kind) assertKind(ctx, input.kind, 'topic');
  // Archived cards are not listed (archive.ts); they are still read by history.
  let q = ctx.db.withSchema(subject).selectFrom('topics').select(['id', 'slug', 'kind', 'title', 'summary', 'updated_at']).where('archived_at', 'is', null);
  if (input.kind) q = q.where('kind', '=', input.kind);
  if (input.tag) {
    // As it would have been stored ("YC Alum" finds yc-alum), and as given (tags written before normalising).
    const names = [...new Set([normaliseTag(input.tag), input.tag].filter((t): t is string => t !== undefined))];
    q = q.where('id', 'in', (eb) => eb.selectFrom('topic_tags').select('topic_id').where('tag', 'in', names));
  }
  if (input.updatedSince) q = q.where('updated_at', '>=', new Date(input.updatedSince));
  const rows = await q.orderBy('updated_at', 'desc').orderBy('slug').limit(input.limit).offset(input.offset).execute();
  return rows.map((r) => ({ subject, slug: r.slug, kind: r.kind, title: r.title, summary: r.summary, updatedAt: new Date(r.updated_at).toISOString() }));
}

/** The subjects a context can read, its own first. */
export function readableSubjects(ctx: BrainContext): string[] {
  return ctx.subject.isPersonal ? [PERSONAL] : [ctx.subject.name, PERSONAL];
}
