// Propose's search before add, with remember()'s judgement (judgement.ts): the same thing in
// the target subject becomes a `~` update of that card; anything else a new card, which
// carries the links remember() would make and the possible duplicates it would flag.
import { PERSONAL } from '../../config/subjects.js';
import { findTopic } from '../knowledge/index.js';
import { decide, linkContext, weighCandidates, type SearchDeps } from '../search/index.js';
import { firstFreeSlug, slugFor } from '../search/slugify.js';
import type { TopicPlanner } from './planner.js';

export function searchPlanner(deps: SearchDeps): TopicPlanner {
  return async (ctx, subject, item) => {
    const wanted = item.slug ?? slugFor(item.kind, item.title);
    // Into personal, only personal is weighed: the plan is stored, and must not name project cards.
    const scope = subject === PERSONAL ? [PERSONAL] : [subject];
    const { candidates } = await weighCandidates(ctx, scope, subject, wanted, { kind: item.kind, title: item.title, summary: undefined, body: item.body }, deps);
    const weighed = candidates.map((c) => ({ subject: c.subject, slug: c.slug, score: c.score }));
    const { update, flagged, links } = decide(candidates, subject, item.slug);
    if (update) return { action: 'update', slug: update.slug, existingTitle: update.title, candidates: weighed };
    const slug = item.slug ?? (await firstFreeSlug(wanted, async (s) => (await findTopic(ctx.db, subject, s)) !== undefined));
    return {
      action: 'create',
      slug,
      candidates: weighed,
      links: links.map((c) => ({ subject: c.subject, slug: c.slug, context: linkContext(c) })),
      possibleDuplicates: flagged.map((c) => ({ subject: c.subject, slug: c.slug, title: c.title, score: c.score })),
    };
  };
}
