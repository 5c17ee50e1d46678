// Reading one card with whatever the caller asks for. Costs scale with what is asked:
// by default only the card itself comes back.
import { z } from 'zod';
import { targetSubject, type BrainContext } from './context.js';
import { timelineOf, type Episode } from './episodes.js';
import { history, type History } from './history.js';
import { backlinks, linksFrom, type Link } from './links.js';
import { parseInput, slug, subjectRef } from './schemas.js';
import { raw, sourcesOf, type RawData, type Source } from './sources.js';
import { requireTopic, toTopic, type Topic } from './topics.js';

export const INCLUDES = ['timeline', 'links', 'backlinks', 'tags', 'sources', 'raw', 'history'] as const;

export const getTopicInput = z.object({
  subject: subjectRef,
  slug,
  include: z.array(z.enum(INCLUDES)).default([]),
  timelineLimit: z.number().int().min(1).max(500).default(20),
});

export interface TopicView extends Topic {
  tags?: string[];
  timelineEntries?: Episode[];
  links?: Link[];
  backlinks?: Link[];
  sources?: Source[];
  raw?: RawData[];
  history?: History;
}

export async function getTopic(ctx: BrainContext, rawInput: z.input<typeof getTopicInput>): Promise<TopicView> {
  const input = parseInput(getTopicInput, rawInput, 'get');
  const subject = targetSubject(ctx, input.subject);
  const row = await requireTopic(ctx.db, subject, input.slug);
  const view: TopicView = toTopic(subject, row);
  const want = new Set(input.include);
  if (want.has('tags')) {
    view.tags = (await ctx.db.withSchema(subject).selectFrom('topic_tags').select('tag').where('topic_id', '=', row.id).orderBy('tag').execute()).map((r) => r.tag);
  }
  if (want.has('timeline')) view.timelineEntries = await timelineOf(ctx.db, subject, row.id, input.timelineLimit);
  if (want.has('links')) view.links = await linksFrom(ctx, subject, row.id);
  if (want.has('backlinks')) view.backlinks = await backlinks(ctx, { subject, slug: input.slug });
  if (want.has('sources')) view.sources = await sourcesOf(ctx, subject, row.id);
  if (want.has('raw')) view.raw = await raw(ctx, { subject, slug: input.slug });
  if (want.has('history')) view.history = await history(ctx, { subject, slug: input.slug, limit: 10 });
  return view;
}
