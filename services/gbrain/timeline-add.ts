// `brain timeline-add`: one dated entry on a card, written both ways in one transaction,
// as GBrain does: an episode (the structured record) and a line in the card's timeline
// markdown (newest first, above the existing lines), so export shows it as the page would.
import { z } from 'zod';
import { write, type BrainContext } from '../knowledge/context.js';
import { BrainError, fromDatabaseError } from '../knowledge/errors.js';
import { insertEpisode, recordEpisodeInput, type Episode } from '../knowledge/episodes.js';
import { assertKind } from '../knowledge/kinds.js';
import { parseInput, reason, slug } from '../knowledge/schemas.js';
import { requireLockedTopic, updateTopicIn, updateTopicInput } from '../knowledge/topics.js';
import { episodeKindFor, episodeTitle, isCalendarDate, mergeTimeline } from './episode-mapping.js';

export const timelineAddInput = z.object({
  slug,
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'the date is YYYY-MM-DD').refine(isCalendarDate, 'not a calendar date'),
  summary: z.string().trim().min(1).max(2000),
  source: z.string().trim().max(300).default(''),
  detail: z.string().max(100_000).default(''),
  /** Episode kind; by default read from the source (meeting/call → meeting, else note). */
  kind: z.string().trim().min(1).optional(),
  reason,
});

export async function addTimelineEntry(ctx: BrainContext, raw: z.input<typeof timelineAddInput>): Promise<Episode> {
  const input = parseInput(timelineAddInput, raw, 'timeline-add');
  const subject = ctx.subject.name;
  const kind = input.kind ?? episodeKindFor(input.source);
  assertKind(ctx, kind, 'episode');
  if (input.source.includes('—')) throw new BrainError('invalid_input', 'timeline-add: the source may not contain an em dash (—)', 'The em dash separates source from summary in a timeline line; use a hyphen.');
  try {
    return await write(ctx, { operation: 'timeline-add', reason: input.reason }, async (trx) => {
      // Locked: the timeline is read, merged and written back (a concurrent entry must not be lost).
      const topic = await requireLockedTopic(trx, subject, input.slug);
      const entry = { date: input.date, source: input.source, summary: input.summary };
      const episode = await insertEpisode(
        trx,
        subject,
        parseInput(recordEpisodeInput, { kind, occurredAt: input.date, title: episodeTitle(entry), summary: input.summary, detail: input.detail, sourceLabel: input.source, topics: [input.slug] }, 'timeline-add'),
      );
      const timeline = mergeTimeline(topic.timeline, [{ id: episode.id, kind, date: input.date, title: episode.title, summary: input.summary, detail: input.detail, sourceLabel: input.source }]);
      if (timeline !== topic.timeline) await updateTopicIn(trx, subject, parseInput(updateTopicInput, { slug: input.slug, timeline }, 'timeline-add'), topic);
      return episode;
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `timeline-add "${input.slug}"`);
  }
}
