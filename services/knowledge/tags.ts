import { z } from 'zod';
import { requireUpcastReason, targetSubject, write, type BrainContext } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { parseInput, reason, slug, subjectRef, tag } from './schemas.js';
import { requireTopic } from './topics.js';

export const tagInput = z.object({ subject: subjectRef, slug, tags: z.array(tag).min(1).max(50), remove: z.boolean().default(false), reason });

/** Adds (or with remove, takes away) tags; returns the card's tags afterwards. */
export async function tagTopic(ctx: BrainContext, raw: z.input<typeof tagInput>): Promise<string[]> {
  const input = parseInput(tagInput, raw, 'tag');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  try {
    return await write(ctx, { operation: input.remove ? 'untag' : 'tag', reason: input.reason }, async (trx) => {
      const topic = await requireTopic(trx, subject, input.slug);
      const tags = [...new Set(input.tags)];
      if (input.remove) {
        await trx.withSchema(subject).deleteFrom('topic_tags').where('topic_id', '=', topic.id).where('tag', 'in', tags).execute();
      } else {
        await trx.withSchema(subject).insertInto('topic_tags').values(tags.map((t) => ({ topic_id: topic.id, tag: t }))).onConflict((oc) => oc.doNothing()).execute();
      }
      const rows = await trx.withSchema(subject).selectFrom('topic_tags').select('tag').where('topic_id', '=', topic.id).orderBy('tag').execute();
      return rows.map((r) => r.tag);
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `tag "${input.slug}"`);
  }
}

export async function tagsOf(ctx: BrainContext, raw: { subject?: string; slug: string }): Promise<string[]> {
  const input = parseInput(z.object({ subject: subjectRef, slug }), raw, 'tags');
  const subject = targetSubject(ctx, input.subject);
  const topic = await requireTopic(ctx.db, subject, input.slug);
  const rows = await ctx.db.withSchema(subject).selectFrom('topic_tags').select('tag').where('topic_id', '=', topic.id).orderBy('tag').execute();
  return rows.map((r) => r.tag);
}

/** Every tag of a subject with how many cards carry it. */
export async function allTags(ctx: BrainContext, raw: { subject?: string } = {}): Promise<{ tag: string; count: number }[]> {
  const subject = targetSubject(ctx, parseInput(z.object({ subject: subjectRef }), raw, 'tags').subject);
  const rows = await ctx.db
    .withSchema(subject)
    .selectFrom('topic_tags')
    .select((eb) => ['tag', eb.fn.countAll<number>().as('count')])
    // Tags of live cards: an archived card is not listed, so its tags are not counted.
    .where('topic_id', 'in', (eb) => eb.selectFrom('topics').select('id').where('archived_at', 'is', null))
    .groupBy('tag')
    .orderBy('tag')
    .execute();
  return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
}
