// What a session-close proposal holds: proposed writes, each a topic or an episode,
// aimed at this subject or (from a project, with a reason) at personal.
import { z } from 'zod';
import { kindName, occurredAt, reason, slug, subjectRef, tag } from '../knowledge/schemas.js';

export const topicItem = z.object({
  type: z.literal('topic'),
  subject: subjectRef,
  kind: kindName,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(1000).optional(),
  body: z.string().max(100_000).default(''),
  slug: slug.optional(),
  tags: z.array(tag).max(20).default([]),
  mode: z.enum(['append', 'replace']).default('append'),
  reason,
});

export const episodeItem = z.object({
  type: z.literal('episode'),
  subject: subjectRef,
  kind: kindName,
  date: occurredAt,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(2000).optional(),
  detail: z.string().max(50_000).optional(),
  source: z.string().max(300).optional(),
  topics: z.array(slug).max(20).default([]),
  reason,
});

export const proposalItem = z.discriminatedUnion('type', [topicItem, episodeItem]);
export type ProposalItem = z.output<typeof proposalItem>;

/** What propose decided for one item, stored with the proposal. */
export interface PlannedItem {
  n: number;
  item: ProposalItem;
  subject: string;
  /** '+' creates, '~' updates an existing card, '✗' cannot be written (and why). */
  action: '+' | '~' | '✗';
  /** The card a topic item creates or updates. */
  slug?: string;
  existingTitle?: string;
  problem?: string;
  candidates?: { subject: string; slug: string; score: number }[];
}
