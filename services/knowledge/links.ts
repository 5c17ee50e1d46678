// Links from a topic to a target named by subject and slug. Backlinks are a query over
// every links table this subject can read (its own and personal's), never a copy.
import { z } from 'zod';
import type { LinkRelation } from '../../db/tables/links.table.js';
import { requireUpcastReason, targetSubject, write, type BrainContext, type Trx } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { parseInput, reason, relation, slug, subjectRef } from './schemas.js';
import { findTopic, readableSubjects, requireTopic } from './topics.js';

export interface Link {
  fromSubject: string;
  fromSlug: string;
  toSubject: string;
  toSlug: string;
  relation: LinkRelation;
  context: string;
}

export const linkInput = z.object({
  subject: subjectRef,
  from: slug,
  to: slug,
  toSubject: subjectRef,
  relation: relation.default('mentions'),
  context: z.string().max(2000).default(''),
  remove: z.boolean().default(false),
  reason,
});

export async function insertLink(trx: Trx, subject: string, fromId: number, l: { toSubject: string; to: string; relation: LinkRelation; context: string }): Promise<void> {
  await trx
    .withSchema(subject)
    .insertInto('links')
    .values({ from_topic_id: fromId, to_subject: l.toSubject, to_slug: l.to, relation: l.relation, context: l.context })
    .onConflict((oc) => oc.columns(['from_topic_id', 'to_subject', 'to_slug', 'relation']).doUpdateSet({ context: l.context }))
    .execute();
}

/**
 * Creates (or with remove, deletes) a link. This is the tool's and the CLI's path, and here
 * the target must exist: a link to a misspelt slug would otherwise succeed silently and only
 * show up later in lint. Dead links still arise, on purpose, elsewhere: a GBrain import keeps
 * every wiki link of a page (the target may be outside the import), and a card that is
 * deleted leaves the links to it; lint reports and removes those (insertLink takes any target).
 */
export async function linkTopics(ctx: BrainContext, raw: z.input<typeof linkInput>): Promise<Link> {
  const input = parseInput(linkInput, raw, 'link');
  const subject = targetSubject(ctx, input.subject);
  const toSubject = input.toSubject ?? subject;
  if (toSubject !== subject && toSubject !== 'personal') {
    throw new BrainError('invalid_link', `a link from ${subject} may point only into ${subject} or personal`, 'Link to a card in this subject or in personal.');
  }
  if (subject === 'personal' && toSubject !== 'personal') {
    throw new BrainError('invalid_link', 'a link stored in personal may point only into personal', 'Store the link on the project card instead (from the project, to the personal card).');
  }
  requireUpcastReason(ctx, subject, input.reason);
  try {
    return await write(ctx, { operation: input.remove ? 'unlink' : 'link', reason: input.reason }, async (trx) => {
      const from = await requireTopic(trx, subject, input.from);
      if (input.remove) {
        const r = await trx
          .withSchema(subject)
          .deleteFrom('links')
          .where('from_topic_id', '=', from.id)
          .where('to_subject', '=', toSubject)
          .where('to_slug', '=', input.to)
          .executeTakeFirst();
        if (!r.numDeletedRows) throw new BrainError('not_found', `no link from "${input.from}" to ${toSubject}:${input.to}`, 'List the card\'s links (get with links) to see what exists.');
      } else {
        const target = await findTopic(trx, toSubject, input.to);
        if (!target) {
          throw new BrainError(
            'not_found',
            `cannot link to ${toSubject}:${input.to}: no such card`,
            `Search for it (search tool) to find its slug${toSubject === subject && subject !== 'personal' ? ', or pass toSubject: "personal" if it is a personal card' : ''}, or create it first (remember), then link again.`,
            { details: { field: 'to' } },
          );
        }
        if (target.archived_at) {
          throw new BrainError(
            'not_found',
            `cannot link to ${toSubject}:${input.to}: it is archived${target.merged_into ? `, merged into ${toSubject}:${target.merged_into}` : ''}`,
            target.merged_into ? `Link to "${target.merged_into}" instead.` : `Unarchive it first (archive with unarchive: true), or link to another card.`,
            { details: { field: 'to', archived: true } },
          );
        }
        await insertLink(trx, subject, from.id, { toSubject, to: input.to, relation: input.relation, context: input.context });
      }
      return { fromSubject: subject, fromSlug: input.from, toSubject, toSlug: input.to, relation: input.relation, context: input.context };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `link "${input.from}"`);
  }
}

export async function linksFrom(ctx: BrainContext, subject: string, topicId: number): Promise<Link[]> {
  const rows = await ctx.db
    .withSchema(subject)
    .selectFrom('links as l')
    .innerJoin('topics as t', 't.id', 'l.from_topic_id')
    .select(['t.slug', 'l.to_subject', 'l.to_slug', 'l.relation', 'l.context'])
    .where('l.from_topic_id', '=', topicId)
    .orderBy('l.to_subject')
    .orderBy('l.to_slug')
    .execute();
  return rows.map((r) => ({ fromSubject: subject, fromSlug: r.slug, toSubject: r.to_subject, toSlug: r.to_slug, relation: r.relation, context: r.context }));
}

export const backlinksInput = z.object({ subject: subjectRef, slug });

/** Cards linking to subject:slug, from every subject this brain can read. */
export async function backlinks(ctx: BrainContext, raw: z.input<typeof backlinksInput>): Promise<Link[]> {
  const input = parseInput(backlinksInput, raw, 'backlinks');
  const target = targetSubject(ctx, input.subject);
  const found: Link[] = [];
  for (const from of readableSubjects(ctx)) {
    const rows = await ctx.db
      .withSchema(from)
      .selectFrom('links as l')
      .innerJoin('topics as t', 't.id', 'l.from_topic_id')
      .select(['t.slug', 'l.relation', 'l.context'])
      .where('l.to_subject', '=', target)
      .where('l.to_slug', '=', input.slug)
      // An archived card's links are not shown while it is archived.
      .where('t.archived_at', 'is', null)
      .orderBy('t.slug')
      .execute();
    found.push(...rows.map((r) => ({ fromSubject: from, fromSlug: r.slug, toSubject: target, toSlug: input.slug, relation: r.relation, context: r.context })));
  }
  return found;
}
