// Episodes: what happened, and when. Each concerns zero or more topics of the same
// subject; a topic's timeline is its episodes, newest first.
import { z } from 'zod';
import type { EpisodeRow } from '../../db/tables/episodes.table.js';
import { requireUpcastReason, targetSubject, write, type BrainContext, type Db, type Trx } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { assertKind } from './kinds.js';
import { kindName, occurredAt, parseInput, reason, slug, subjectRef } from './schemas.js';
import { requireTopic } from './topics.js';

export interface Episode {
  subject: string;
  id: number;
  kind: string;
  occurredAt: string;
  dateOnly: boolean;
  title: string;
  summary: string;
  detail: string;
  sourceLabel: string;
  topics?: string[];
}

export function toEpisode(subject: string, row: EpisodeRow, topics?: string[]): Episode {
  const at = new Date(row.occurred_at).toISOString();
  return {
    subject,
    id: row.id,
    kind: row.kind,
    occurredAt: row.date_only ? at.slice(0, 10) : at,
    dateOnly: row.date_only,
    title: row.title,
    summary: row.summary,
    detail: row.detail,
    sourceLabel: row.source_label,
    ...(topics ? { topics } : {}),
  };
}

const EPISODE_COLUMNS = ['id', 'kind', 'kind_class', 'occurred_at', 'date_only', 'title', 'summary', 'detail', 'source_label', 'created_at', 'updated_at'] as const;

export const recordEpisodeInput = z.object({
  subject: subjectRef,
  kind: kindName,
  occurredAt,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(2000).default(''),
  detail: z.string().max(100_000).default(''),
  sourceLabel: z.string().max(300).default(''),
  topics: z.array(slug).max(50).default([]),
  reason,
});
export type RecordEpisodeInput = z.input<typeof recordEpisodeInput>;

export function occurredParts(value: string): { at: string; dateOnly: boolean } {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? { at: `${value}T00:00:00Z`, dateOnly: true } : { at: value, dateOnly: false };
}

export async function insertEpisode(trx: Trx, subject: string, input: z.output<typeof recordEpisodeInput>): Promise<Episode> {
  const topicIds: number[] = [];
  for (const s of [...new Set(input.topics)]) topicIds.push((await requireTopic(trx, subject, s)).id);
  const { at, dateOnly } = occurredParts(input.occurredAt);
  const row = await trx
    .withSchema(subject)
    .insertInto('episodes')
    .values({ kind: input.kind, occurred_at: at, date_only: dateOnly, title: input.title, summary: input.summary, detail: input.detail, source_label: input.sourceLabel })
    .returning(EPISODE_COLUMNS)
    .executeTakeFirstOrThrow();
  if (topicIds.length) await trx.withSchema(subject).insertInto('episode_topics').values(topicIds.map((id) => ({ episode_id: row.id, topic_id: id }))).execute();
  return toEpisode(subject, row, [...new Set(input.topics)]);
}

export async function recordEpisode(ctx: BrainContext, raw: RecordEpisodeInput, operation = 'record-episode'): Promise<Episode> {
  const input = parseInput(recordEpisodeInput, raw, 'record episode');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  assertKind(ctx, input.kind, 'episode');
  try {
    return await write(ctx, { operation, reason: input.reason }, (trx) => insertEpisode(trx, subject, input));
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, 'record episode');
  }
}

export const timelineInput = z.object({ subject: subjectRef, slug, limit: z.number().int().min(1).max(500).default(50) });

/** A topic's episodes, newest first. */
export async function timeline(ctx: BrainContext, raw: z.input<typeof timelineInput>): Promise<Episode[]> {
  const input = parseInput(timelineInput, raw, 'timeline');
  const subject = targetSubject(ctx, input.subject);
  const topic = await requireTopic(ctx.db, subject, input.slug);
  return timelineOf(ctx.db, subject, topic.id, input.limit);
}

export async function timelineOf(db: Db | Trx, subject: string, topicId: number, limit: number): Promise<Episode[]> {
  const rows = await db
    .withSchema(subject)
    .selectFrom('episodes as e')
    .innerJoin('episode_topics as et', 'et.episode_id', 'e.id')
    .select(['e.id', 'e.kind', 'e.kind_class', 'e.occurred_at', 'e.date_only', 'e.title', 'e.summary', 'e.detail', 'e.source_label', 'e.created_at', 'e.updated_at'])
    .where('et.topic_id', '=', topicId)
    .orderBy('e.occurred_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => toEpisode(subject, r));
}
