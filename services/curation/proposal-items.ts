// What a session-close proposal holds: proposed writes, each a topic or an episode,
// aimed at this subject or (from a project, with a reason) at personal.
import { z } from 'zod';
import { kindName, occurredAt, reason, slug, subjectRef, tag } from '../knowledge/schemas.js';
import type { TagRename } from '../knowledge/tags.js';

// An item carries every field remember (a topic) or record (an episode) takes, with the same
// limits: what the model could write directly it can also propose, and nothing is dropped.
// Strict: a field of the other type (tags on an episode) is refused by name, not ignored.
export const topicItem = z.strictObject({
  type: z.literal('topic'),
  subject: subjectRef,
  kind: kindName,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(1000).optional(),
  body: z.string().max(200_000).default(''),
  slug: slug.optional(),
  tags: z.array(tag).max(50).default([]),
  mode: z.enum(['append', 'replace']).default('append'),
  /** A new card even when a confident match exists (then a reason is needed), as remember's forceNew. */
  forceNew: z.boolean().default(false),
  reason,
});

export const episodeItem = z.strictObject({
  type: z.literal('episode'),
  subject: subjectRef,
  kind: kindName,
  date: occurredAt,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(2000).optional(),
  detail: z.string().max(100_000).optional(),
  source: z.string().max(300).optional(),
  topics: z.array(slug).max(50).default([]),
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
  /** Tags that will be stored under another spelling (knowledge/tags.ts). */
  renamedTags?: TagRename[];
  candidates?: { subject: string; slug: string; score: number }[];
  /** A new topic's `mentions` links (search before add), written with it. */
  links?: { subject: string; slug: string; context: string }[];
  /** Cards the new topic may duplicate: shown in the preview, never linked or merged without the person. */
  possibleDuplicates?: { subject: string; slug: string; title: string; score: number }[];
}
