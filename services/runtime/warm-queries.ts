// The question a starting server asks itself (warm-up.ts), drawn from the subject's own cards:
// the title of its newest topic, as someone asks for a person or a project, or, in a subject
// with no topics, a few words of its newest episode (the summary, else the title), as someone
// half remembers a note.
//
// What it warms is code, not data: Postgres's WebAssembly starts on V8's baseline compiler and
// is optimised function by function as it runs hot, and one search of each kind left a freshly
// started server's first real searches much slower than later ones. On the scale bench's
// 7,500-page brain (hybrid, in-process, 2026-12-03), 100 held-out queries after 5 other searches:
// p50 / p95 29.5 / 58.9 ms; after 20: 23.5 / 39.9 ms.
//
// One question asked WARM_SEARCHES times, not that many different ones: each question reads the
// pages of the hundred-odd cards it ranks into PGlite's memory, which an idle server then keeps.
// With `brain serve` on that brain, nothing asked (RSS 18 s after the start; the first 100
// held-out hybrid queries over MCP 5 s after it, p95; two runs each, 3 December 2026):
//   20 different questions   180-183 MiB   64 ms
//   1 question x 20           141-142 MiB   66-72 ms
//   none                      129-130 MiB   78-240 ms
// So one question buys nearly all of the speed for a quarter of the memory twenty held (12 MiB
// against 52; docs/performance.md, "The warm-up: one question, twenty times").
import { sql } from 'kysely';
import type { BrainContext } from '../knowledge/context.js';

/** Searches a starting server asks itself beyond the first of each kind (see above: 5 were not enough, 20 were). */
export const WARM_SEARCHES = 20;

/** Words of an episode's summary taken as a half-remembered query. */
const EPISODE_WORDS = 5;

/** The warm-up's question: the newest topic's title, else the first words of the newest episode; undefined for an empty subject. */
export async function warmUpQuestion(ctx: BrainContext): Promise<string | undefined> {
  const subject = ctx.subject.name;
  const { rows } = await sql<{ source: 'topic' | 'episode'; text: string }>`
    (SELECT 'topic' AS source, title AS text FROM ${sql.table(`${subject}.topics`)} WHERE archived_at IS NULL ORDER BY id DESC LIMIT 1)
    UNION ALL
    (SELECT 'episode', coalesce(nullif(summary, ''), title) FROM ${sql.table(`${subject}.episodes`)} ORDER BY id DESC LIMIT 1)`.execute(ctx.db);
  const topic = rows.find((r) => r.source === 'topic')?.text.trim();
  if (topic) return topic;
  const episode = rows.find((r) => r.source === 'episode')?.text.split(/\s+/).filter(Boolean).slice(0, EPISODE_WORDS).join(' ');
  return episode || undefined;
}
