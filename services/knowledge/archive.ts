// Archive, unarchive and merge: how a card leaves the brain without being lost.
//
// Archiving is a soft delete. The card keeps its row, slug, tags, links, timeline and
// history; topics.archived_at is set, and everything that shows cards (get, list, search,
// lint, the index, link targets) leaves it out. Unarchiving clears it and the card is back
// as it was. Both are ordinary updates for the history triggers: each is a version of the
// card and a row in the outbox, with the operation and the reason.
//
// Merging folds one card into another of the same subject, in one transaction: the survivor
// gets the merged card's body appended (or a body given for the two), its tags, its outgoing
// links and the links that pointed at it, its episodes, sources and raw data (one record per
// source: the survivor's own wins); then the merged card is archived with merged_into naming
// the survivor, so its slug still answers "merged into X". Both keep their histories.
//
// Who may archive: a subject's own role, its own cards. In personal, only personal's role:
// a project may amend personal's cards but not take one away, and the database enforces it
// (migrations/global/0008_archive_guard.sql), whatever this code does.
import { sql } from 'kysely';
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import type { TopicRow } from '../../db/tables/topics.table.js';
import { targetSubject, write, type BrainContext, type Trx } from './context.js';
import { BrainError, fromDatabaseError, sqlStateOf } from './errors.js';
import { archiveRefusal } from './history.js';
import { parseInput, reason, slug, subjectRef } from './schemas.js';
import { appendBody, archivedError, findTopic, lockTopic, updateTopicIn } from './topics.js';

export const archiveInput = z.object({ subject: subjectRef, slug, unarchive: z.boolean().default(false), reason });

export interface ArchiveResult {
  subject: string;
  slug: string;
  archived: boolean;
  /** false when the card already was in the state asked for. */
  changed: boolean;
  /** Set when the card had been merged into another (kept on unarchive, for the answer). */
  mergedInto: string | null;
  /** The card's version number now (see history.ts). */
  version: number;
  /** Links in this subject that point at the card (they are dead while it is archived; lint lists them). */
  linkedFrom: number;
}

/** The per-card number of the current version: one more than the kept previous states. */
async function currentVersion(trx: Trx, subject: string, topicId: number): Promise<number> {
  const r = await trx.withSchema(subject).selectFrom('versions').select((eb) => eb.fn.countAll<number>().as('n')).where('entity', '=', 'topic').where('entity_id', '=', topicId).executeTakeFirstOrThrow();
  return Number(r.n) + 1;
}

async function linksTo(trx: Trx, subject: string, topicSlug: string): Promise<number> {
  const r = await trx
    .withSchema(subject)
    .selectFrom('links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('to_subject', '=', subject)
    .where('to_slug', '=', topicSlug)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

function refusedOrMapped(error: unknown, what: string): never {
  if (error instanceof BrainError) throw error;
  if (sqlStateOf(error) === '42501') throw archiveRefusal(error, what);
  return fromDatabaseError(error, what);
}

/** Archives a card, or with unarchive brings it back. Archiving an archived card changes nothing. */
export async function archiveTopic(ctx: BrainContext, raw: z.input<typeof archiveInput>): Promise<ArchiveResult> {
  const input = parseInput(archiveInput, raw, 'archive');
  const subject = targetSubject(ctx, input.subject);
  const what = `${input.unarchive ? 'unarchive' : 'archive'} ${subject}:${input.slug}`;
  try {
    return await write(ctx, { operation: input.unarchive ? 'unarchive' : 'archive', reason: input.reason }, async (trx) => {
      const row = await lockTopic(trx, subject, input.slug);
      if (!row) throw new BrainError('not_found', `no topic "${input.slug}" in ${subject}`, 'Search first (search tool) to find the right slug.', { details: { field: 'slug' } });
      const archived = row.archived_at !== null;
      let changed = false;
      if (!input.unarchive && !archived) {
        await trx.withSchema(subject).updateTable('topics').set({ archived_at: sql<Date>`now()` }).where('id', '=', row.id).execute();
        changed = true;
      } else if (input.unarchive && archived) {
        await trx.withSchema(subject).updateTable('topics').set({ archived_at: null, merged_into: null }).where('id', '=', row.id).execute();
        changed = true;
      }
      return {
        subject,
        slug: row.slug,
        archived: !input.unarchive,
        changed,
        mergedInto: row.merged_into,
        version: await currentVersion(trx, subject, row.id),
        linkedFrom: await linksTo(trx, subject, row.slug),
      };
    });
  } catch (error) {
    return refusedOrMapped(error, what);
  }
}

export const mergeInput = z.object({
  subject: subjectRef,
  /** The card merged away (archived, pointing at the survivor). */
  from: slug,
  /** The survivor. */
  into: slug,
  /** The survivor's body after the merge; by default its own with the merged card's appended. */
  body: z.string().max(200_000).optional(),
  title: z.string().trim().min(1).max(300).optional(),
  summary: z.string().max(1000).optional(),
  reason,
});

export interface MergeResult {
  subject: string;
  from: string;
  into: string;
  /** How the survivor's body was made. */
  body: 'appended' | 'given' | 'kept';
  tagsAdded: number;
  linksMoved: number;
  backlinksMoved: number;
  /** Links dropped because the survivor had the same one already, or they would point at itself. */
  linksDropped: number;
  episodesMoved: number;
  sourcesMoved: number;
  rawMoved: number;
  /** Raw data sources left on the merged card because the survivor has its own record of that source. */
  rawKept: string[];
  /** Version numbers after the merge. */
  fromVersion: number;
  intoVersion: number;
}

/**
 * Merges `from` into `into` (same subject) in one transaction; see the head of this file.
 * Both cards are locked first, in id order, so two merges over the same cards cannot deadlock.
 */
export async function mergeTopics(ctx: BrainContext, raw: z.input<typeof mergeInput>): Promise<MergeResult> {
  const input = parseInput(mergeInput, raw, 'merge');
  const subject = targetSubject(ctx, input.subject);
  const what = `merge ${subject}:${input.from} into ${subject}:${input.into}`;
  if (input.from === input.into) throw new BrainError('invalid_input', 'merge: from and into name the same card', 'Name two different cards: from is archived into into.', { details: { field: 'into' } });
  if (subject === PERSONAL && !ctx.subject.isPersonal) {
    // The database refuses it too (the archive guard); this says so before anything runs.
    throw new BrainError(
      'forbidden',
      `${what}: only the personal brain may archive, unarchive or merge a personal card`,
      'Nothing was changed. Ask in a personal session to merge these cards; from a project, link to the card that should be used instead.',
    );
  }
  const t = (name: string) => sql.table(`${subject}.${name}`);
  try {
    return await write(ctx, { operation: 'merge', reason: input.reason ?? `merged ${input.from} into ${input.into}`, detail: { from: input.from, into: input.into } }, async (trx) => {
      const locked = (
        await trx
          .withSchema(subject)
          .selectFrom('topics')
          .select(['id', 'slug'])
          .where('slug', 'in', [input.from, input.into])
          .orderBy('id')
          .forUpdate()
          .execute()
      ).map((r) => r.slug);
      const rows = new Map<string, TopicRow>();
      for (const s of locked) rows.set(s, (await findTopic(trx, subject, s))!);
      const from = rows.get(input.from);
      const into = rows.get(input.into);
      for (const [s, row, field] of [[input.from, from, 'from'], [input.into, into, 'into']] as const) {
        if (!row) throw new BrainError('not_found', `merge: no topic "${s}" in ${subject}`, 'Search first (search tool) to find the right slug.', { details: { field } });
        if (row.archived_at) throw archivedError(subject, row, 'write');
      }
      const a = from!;
      const b = into!;

      // Outgoing links of the merged card move to the survivor, except those that would point
      // at the survivor itself (or at the merged card); one the survivor already has is dropped.
      const selfTargets = [a.slug, b.slug];
      const moved = await sql<{ n: number }>`
        WITH ins AS (
          INSERT INTO ${t('links')} (from_topic_id, to_subject, to_slug, relation, context)
          SELECT ${b.id}, to_subject, to_slug, relation, context FROM ${t('links')}
           WHERE from_topic_id = ${a.id} AND NOT (to_subject = ${subject} AND to_slug = ANY(${selfTargets}::text[]))
          ON CONFLICT (from_topic_id, to_subject, to_slug, relation) DO NOTHING
          RETURNING 1)
        SELECT count(*)::int AS n FROM ins`.execute(trx);
      const outgoing = Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${t('links')} WHERE from_topic_id = ${a.id}`.execute(trx)).rows[0]!.n);
      await sql`DELETE FROM ${t('links')} WHERE from_topic_id = ${a.id}`.execute(trx);
      const linksMoved = moved.rows[0]!.n;

      // Links in this subject that pointed at the merged card now point at the survivor: the
      // survivor's own (they would be self-links) and duplicates of links it already has go.
      const dropped = await sql<{ n: number }>`
        WITH del AS (
          DELETE FROM ${t('links')} l
           WHERE l.to_subject = ${subject} AND l.to_slug = ${a.slug}
             AND (l.from_topic_id = ${b.id}
                  OR EXISTS (SELECT 1 FROM ${t('links')} d WHERE d.from_topic_id = l.from_topic_id AND d.to_subject = ${subject}
                                AND d.to_slug = ${b.slug} AND d.relation = l.relation))
          RETURNING 1)
        SELECT count(*)::int AS n FROM del`.execute(trx);
      const retargeted = await sql<{ n: number }>`
        WITH upd AS (UPDATE ${t('links')} SET to_slug = ${b.slug} WHERE to_subject = ${subject} AND to_slug = ${a.slug} RETURNING 1)
        SELECT count(*)::int AS n FROM upd`.execute(trx);

      const tags = await sql<{ n: number }>`
        WITH ins AS (INSERT INTO ${t('topic_tags')} (topic_id, tag) SELECT ${b.id}, tag FROM ${t('topic_tags')} WHERE topic_id = ${a.id}
                     ON CONFLICT DO NOTHING RETURNING 1)
        SELECT count(*)::int AS n FROM ins`.execute(trx);

      // Episodes concern the survivor now (an episode about both is attached once).
      const episodes = await sql<{ n: number }>`
        WITH ins AS (INSERT INTO ${t('episode_topics')} (episode_id, topic_id) SELECT episode_id, ${b.id} FROM ${t('episode_topics')} WHERE topic_id = ${a.id}
                     ON CONFLICT DO NOTHING RETURNING 1),
             del AS (DELETE FROM ${t('episode_topics')} WHERE topic_id = ${a.id} RETURNING 1)
        SELECT (SELECT count(*) FROM del)::int AS n, (SELECT count(*) FROM ins)::int AS added`.execute(trx);

      const sources = await trx.withSchema(subject).updateTable('sources').set({ topic_id: b.id }).where('topic_id', '=', a.id).executeTakeFirst();
      const rawMoved = await sql<{ n: number }>`
        WITH upd AS (UPDATE ${t('raw_data')} r SET topic_id = ${b.id}
                      WHERE r.topic_id = ${a.id} AND NOT EXISTS (SELECT 1 FROM ${t('raw_data')} x WHERE x.topic_id = ${b.id} AND x.source = r.source)
                     RETURNING 1)
        SELECT count(*)::int AS n FROM upd`.execute(trx);
      const rawKept = (await trx.withSchema(subject).selectFrom('raw_data').select('source').where('topic_id', '=', a.id).orderBy('source').execute()).map((r) => r.source);

      // The survivor's text: the given body, or its own with the merged card's appended (unless
      // it already says it); the merged card's GBrain timeline follows the same rule.
      const fromBody = a.body.trim();
      const body = input.body ?? (fromBody && !b.body.includes(fromBody) ? appendBody(b.body, a.body) : b.body);
      const fromTimeline = a.timeline.trim();
      const timeline = fromTimeline && !b.timeline.includes(fromTimeline) ? appendBody(b.timeline, a.timeline) : b.timeline;
      await updateTopicIn(
        trx,
        subject,
        {
          slug: b.slug,
          ...(input.title ? { title: input.title } : {}),
          summary: input.summary ?? (b.summary || a.summary),
          body,
          bodyMode: 'replace',
          timeline,
        },
        b,
      );
      await trx.withSchema(subject).updateTable('topics').set({ archived_at: sql<Date>`now()`, merged_into: b.slug }).where('id', '=', a.id).execute();

      return {
        subject,
        from: a.slug,
        into: b.slug,
        body: input.body !== undefined ? 'given' : body === b.body ? 'kept' : 'appended',
        tagsAdded: tags.rows[0]!.n,
        linksMoved,
        backlinksMoved: retargeted.rows[0]!.n,
        linksDropped: outgoing - linksMoved + dropped.rows[0]!.n,
        episodesMoved: episodes.rows[0]!.n,
        sourcesMoved: Number(sources.numUpdatedRows),
        rawMoved: rawMoved.rows[0]!.n,
        rawKept,
        fromVersion: await currentVersion(trx, subject, a.id),
        intoVersion: await currentVersion(trx, subject, b.id),
      };
    });
  } catch (error) {
    return refusedOrMapped(error, what);
  }
}
