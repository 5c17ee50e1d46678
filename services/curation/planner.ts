// How propose decides between creating and updating a card: search before add. The
// search layer's planner is used when it is there; this fallback matches by slug and by
// exact title, so the flow works (more strictly) without it.
import { sql } from 'kysely';
import type { BrainContext } from '../knowledge/index.js';
import { slugFor } from '../search/slugify.js';

export interface TopicPlan {
  action: 'create' | 'update';
  slug: string;
  existingTitle?: string;
  candidates: { subject: string; slug: string; score: number }[];
  /** A new card's `mentions` links, as remember() would make them. */
  links?: { subject: string; slug: string; context: string }[];
  /** A new card's possible duplicates, shown so the person can say "that is the same thing". */
  possibleDuplicates?: { subject: string; slug: string; title: string; score: number }[];
}

export type TopicPlanner = (ctx: BrainContext, subject: string, item: { kind: string; title: string; body: string; slug?: string | undefined }) => Promise<TopicPlan>;

export const exactMatchPlanner: TopicPlanner = async (ctx, subject, item) => {
  const slug = item.slug ?? slugFor(item.kind, item.title);
  const rows = await sql<{ slug: string; title: string }>`
    SELECT slug, title FROM ${sql.table(`${subject}.topics`)}
     WHERE slug = ${slug} OR (lower(title) = lower(${item.title}) AND archived_at IS NULL) ORDER BY (slug = ${slug}) DESC LIMIT 1`.execute(ctx.db);
  const hit = rows.rows[0];
  return hit
    ? { action: 'update', slug: hit.slug, existingTitle: hit.title, candidates: [{ subject, slug: hit.slug, score: 1 }] }
    : { action: 'create', slug, candidates: [] };
};
