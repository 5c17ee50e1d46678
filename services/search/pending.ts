// "Pending" = cards of a subject whose current version (updated_at) has no embedding with
// a given model yet. An anti-join on embedding_state's key; the worker reads the cards themselves
// from the same predicate. Counting visits every card (72-110 ms at 71,000 cards in PGlite, 575-640
// ms at 955,000), so it goes in slices, and a worker with nothing to do asks pendingSince instead,
// which visits only the cards changed since.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db, Trx } from '../knowledge/context.js';
import type { Entity } from './types.js';

/**
 * The most characters of a card's text that are embedded: the body limit of remember and
 * import. A longer card (written by SQL) is embedded from its first 200,000 characters, and
 * keyword search still finds the rest; its chunks and the time to embed them stay bounded.
 */
export const EMBED_TEXT_LIMIT = 200_000;

export interface EmbedModel {
  model: string;
  dims: number;
}

/**
 * Card `c` has no embedding of its current version. With `ids`, the embedding states are also
 * bounded to that id range, for countPending's slices.
 */
function stale(entity: Entity, subject: string, m: EmbedModel, ids?: { from: number; to: number }) {
  const state = sql.table(`${subject}.embedding_state`);
  const col = sql.ref(entity === 'topic' ? 'es.topic_id' : 'es.episode_id');
  const within = ids ? sql` AND ${col} >= ${ids.from} AND ${col} < ${ids.to}` : sql``;
  return sql`NOT EXISTS (SELECT 1 FROM ${state} es WHERE ${col} = c.id${within} AND es.model = ${m.model} AND es.dims = ${m.dims} AND es.source_updated_at = c.updated_at)`;
}

/**
 * Ids one statement of countPending covers. The embedded brain runs one statement at a time, as
 * uninterrupted WebAssembly on the process's only thread: counted in one statement, a search, a
 * ping, even /healthz waited 72-110 ms behind the worker's count at 71,000 cards and 575-640 ms
 * at 955,000, at every start and every few seconds while a backlog is embedded. In slices of
 * 5,000 ids the longest wait was 6-15 ms at both sizes, and the whole count took about as long
 * (docs/retrieval.md, "The worker").
 */
export const COUNT_SLICE = 5_000;

/**
 * The cards of `subject` not yet embedded with `m`, counted over slices of `slice` ids with a
 * turn of the event loop between two, so that whatever arrived meanwhile goes first. The slices
 * are separate statements, not one snapshot: a card written while the count runs may be missed
 * or counted, as it could be just before or after a count in one statement.
 */
export async function countPending(db: Db | Trx, subject: string, m: EmbedModel, slice = COUNT_SLICE): Promise<number> {
  if (!Number.isInteger(slice) || slice < 1) throw new RangeError(`slice must be a positive integer, got ${slice}`);
  let n = 0;
  for (const entity of ['topic', 'episode'] as const) {
    const table = sql.table(`${subject}.${entity === 'topic' ? 'topics' : 'episodes'}`);
    const first = await sql<{ id: number | string | null }>`SELECT min(id) AS id FROM ${table}`.execute(db);
    let from = first.rows[0]?.id ?? null;
    while (from !== null) {
      const lo = Number(from);
      const hi = lo + slice;
      // The range on both sides lets the planner merge the two indexes in id order, whatever plan
      // the prepared statement settles on. `next` skips a gap in the ids in one step.
      const { rows } = await sql<{ pending: number | string; next: number | string | null }>`
        SELECT (SELECT count(*) FROM ${table} c
                 WHERE c.id >= ${lo} AND c.id < ${hi} AND ${stale(entity, subject, m, { from: lo, to: hi })}) AS pending,
               (SELECT min(c.id) FROM ${table} c WHERE c.id >= ${hi}) AS next`.execute(db);
      n += Number(rows[0]!.pending);
      from = rows[0]!.next;
      if (from !== null) await yieldToEventLoop();
    }
  }
  return n;
}

/**
 * How far back a quiet look reaches before the full look it follows (pendingSince): a card
 * written by a transaction that began before that look and committed after it carries the
 * transaction's start time, earlier than the look.
 */
export const QUIET_LOOK_SLACK = '2 minutes';

/** The database's clock less QUIET_LOOK_SLACK, as Postgres text: where a later pendingSince starts. */
export async function quietLookStart(db: Db | Trx): Promise<string> {
  const rows = await sql<{ since: string }>`SELECT (statement_timestamp() - ${QUIET_LOOK_SLACK}::interval)::text AS since`.execute(db);
  return rows.rows[0]!.since;
}

/**
 * Whether a card changed at or after `since` is pending: what can have become pending since a
 * look that found nothing, other than by deleting embeddings (re-embedding, which the worker's
 * periodic full look finds). Ranges of the updated_at indexes, so it costs next to nothing
 * however many cards the subject has.
 */
export async function pendingSince(db: Db | Trx, subject: string, m: EmbedModel, since: string): Promise<boolean> {
  // The mark is written into the statement, not bound: prepared with a parameter, Postgres soon
  // switches to a generic plan, which cannot know that few cards are that recent and reads every
  // episode (25 ms instead of 1.5 at 64,000). A new mark comes with each full look, a minute apart.
  const changed = (entity: Entity) =>
    sql`EXISTS (SELECT 1 FROM ${sql.table(`${subject}.${entity === 'topic' ? 'topics' : 'episodes'}`)} c WHERE c.updated_at >= ${sql.lit(since)}::timestamptz AND ${stale(entity, subject, m)})`;
  const rows = await sql<{ pending: boolean }>`SELECT ${changed('topic')} OR ${changed('episode')} AS pending`.execute(db);
  return rows.rows[0]?.pending === true;
}

export interface PendingCard {
  entity: Entity;
  id: number;
  /** updated_at as Postgres text: exact to the microsecond, which a JS Date is not. */
  version: string;
  title: string;
  summary: string;
  body: string;
  /** The content hash stored for this model, when an older version was embedded with it. */
  storedHash: string | null;
}

/** Up to `limit` pending cards, most recently changed first (topics, then episodes). */
export async function pendingCards(db: Db | Trx, subject: string, m: EmbedModel, limit: number, onlyTopicSlug?: string): Promise<PendingCard[]> {
  const state = sql.table(`${subject}.embedding_state`);
  const topics = await sql<PendingCard>`
    SELECT 'topic' AS entity, c.id, c.updated_at::text AS version, c.title, c.summary, left(c.body, ${EMBED_TEXT_LIMIT}) AS body,
           (SELECT es.content_hash FROM ${state} es WHERE es.topic_id = c.id AND es.model = ${m.model} AND es.dims = ${m.dims}) AS "storedHash"
      FROM ${sql.table(`${subject}.topics`)} c
     WHERE ${stale('topic', subject, m)} ${onlyTopicSlug === undefined ? sql`` : sql`AND c.slug = ${onlyTopicSlug}`}
     ORDER BY c.updated_at DESC, c.id
     LIMIT ${limit}`.execute(db);
  const out = topics.rows.map((r) => ({ ...r, id: Number(r.id) }));
  if (out.length >= limit || onlyTopicSlug !== undefined) return out;
  const episodes = await sql<PendingCard>`
    SELECT 'episode' AS entity, c.id, c.updated_at::text AS version, c.title, c.summary,
           left(concat_ws(E'\n\n', nullif(c.detail, ''), nullif(c.source_label, '')), ${EMBED_TEXT_LIMIT}) AS body,
           (SELECT es.content_hash FROM ${state} es WHERE es.episode_id = c.id AND es.model = ${m.model} AND es.dims = ${m.dims}) AS "storedHash"
      FROM ${sql.table(`${subject}.episodes`)} c
     WHERE ${stale('episode', subject, m)}
     ORDER BY c.updated_at DESC, c.id
     LIMIT ${limit - out.length}`.execute(db);
  return [...out, ...episodes.rows.map((r) => ({ ...r, id: Number(r.id) }))];
}
