// The questions a starting server asks itself (warm-up.ts), drawn from the subject's own cards:
// the titles of its newest topics, as someone asks for a person or a project, and a few words
// of its newest episodes (the summary, else the title), as someone half remembers a note.
// What they warm is code, not data: Postgres's WebAssembly starts on V8's baseline compiler
// and is optimised function by function as it runs hot, and one search of each kind left a
// freshly started server's first real searches much slower than later ones. On the scale
// bench's 7,500-page brain (hybrid, in-process, 2026-12-03), 100 held-out queries after 5
// other searches: p50 / p95 29.5 / 58.9 ms; after 20: 23.5 / 39.9 ms; the same queries a
// second time: 21-25 / 35-41 ms. Queries of half the set run after the other half did as well
// as run a second time, so what is cold is the code every search shares, not the pages each
// one reads.
import { sql } from 'kysely';
import type { BrainContext } from '../knowledge/context.js';

/** Searches a starting server asks itself beyond the first of each kind (see above: 5 were not enough, 20 were). */
export const WARM_SEARCHES = 20;

/** Words of an episode's summary taken as a half-remembered query. */
const EPISODE_WORDS = 5;

/**
 * Up to `n` distinct queries from the subject's newest cards: topic titles and the first words
 * of episode summaries, alternating. Fewer when the subject has fewer cards; none when it is empty.
 */
export async function warmUpQueries(ctx: BrainContext, n = WARM_SEARCHES): Promise<string[]> {
  const half = Math.ceil(n / 2);
  const subject = ctx.subject.name;
  const { rows } = await sql<{ source: 'topic' | 'episode'; text: string }>`
    (SELECT 'topic' AS source, title AS text FROM ${sql.table(`${subject}.topics`)} WHERE archived_at IS NULL ORDER BY id DESC LIMIT ${half})
    UNION ALL
    (SELECT 'episode', coalesce(nullif(summary, ''), title) FROM ${sql.table(`${subject}.episodes`)} ORDER BY id DESC LIMIT ${half})`.execute(ctx.db);
  const titles = rows.filter((r) => r.source === 'topic').map((r) => r.text.trim());
  const fragments = rows.filter((r) => r.source === 'episode').map((r) => r.text.split(/\s+/).filter(Boolean).slice(0, EPISODE_WORDS).join(' '));
  const out = new Set<string>();
  for (let i = 0; out.size < n && (i < titles.length || i < fragments.length); i++) {
    for (const q of [titles[i], fragments[i]]) if (q && out.size < n) out.add(q);
  }
  return [...out];
}
