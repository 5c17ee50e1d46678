// History and restore. Every update or delete of a topic or an episode kept the previous
// row in versions (by trigger, migrations/global/0002_guards.sql), so nothing written is
// lost by an overwrite.
//
// Versions are numbered per card (or episode), v1 being the state it was created in and
// the highest number its current state: the k-th oldest row of versions for an entity holds
// its state v_k, and that row's stamp (when, by whom, why) is the change that made v_(k+1).
// The numbers are computed on read, not stored, so they have no gaps and need no column; the
// global ids of the versions table stay internal. Each version is shown as what changed
// since the one before it: the fields (title, summary, kind, archived...) and a compact
// line diff of the body. Tags and links are not versioned (only a delete keeps them).
import { sql } from 'kysely';
import { z } from 'zod';
import { requireUpcastReason, targetSubject, write, type BrainContext, type Db, type Trx } from './context.js';
import { BrainError, fromDatabaseError, sqlStateOf } from './errors.js';
import type { LinkRelation } from '../../db/tables/links.table.js';
import { lineDiff, type LineDiff } from './line-diff.js';
import { parseInput, reason, slug, subjectRef } from './schemas.js';

export type Entity = 'topic' | 'episode';

/** One field that differs from the version before: old and new values as short text. */
export interface FieldChange {
  field: string;
  from: string;
  to: string;
}

export interface Version {
  /** v1, v2, ... per card or episode; the highest is the current state (unless it was deleted). */
  version: number;
  current: boolean;
  /** When this version came to be (its creation, or the change that made it), who made it and why. */
  at: string;
  by: string | null;
  /** The application's name for the change (remember, archive, merge, restore...), from the outbox. */
  operation: string | null;
  reason: string | null;
  /** How it came to be: created, changed, or recreated (a restore after a delete). */
  origin: 'created' | 'changed' | 'recreated';
  archived: boolean;
  mergedInto: string | null;
  /** What differs from the version before (empty for v1). */
  changes: FieldChange[];
  /** The body's (an episode's detail's) line diff from the version before; absent when unchanged. */
  text?: LineDiff;
  /** The whole row as of this version. */
  state: Record<string, unknown>;
}

export interface History {
  subject: string;
  entity: Entity;
  /** The card's slug, or the episode's id. */
  slug?: string;
  episodeId?: number;
  /** How many versions there are; `versions` holds the newest `limit` of them. */
  total: number;
  /** Set when the row is gone (deleted with psql): its last state is the highest version. */
  deleted: { at: string; by: string; reason: string | null } | null;
  versions: Version[];
}

export const historyInput = z
  .object({ subject: subjectRef, slug: slug.optional(), episodeId: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).default(20) })
  .refine((v) => (v.slug === undefined) !== (v.episodeId === undefined), 'name either a card (slug) or an episode (episodeId)');

interface VersionRow {
  id: number;
  operation: 'UPDATE' | 'DELETE';
  row_data: Record<string, unknown>;
  frontmatter: unknown;
  changed_by: string;
  changed_at: Date;
  reason: string | null;
}

interface Target {
  subject: string;
  entity: Entity;
  id: number;
  slug?: string;
  episodeId?: number;
  /** The live row (archived or not), as versions would keep it; undefined when it was deleted. */
  current?: Record<string, unknown>;
}

const table = (subject: string, entity: Entity) => sql.table(`${subject}.${entity === 'topic' ? 'topics' : 'episodes'}`);

/** The row as keep_version stores it: no search vector, the frontmatter beside it. */
async function currentRow(db: Db | Trx, subject: string, entity: Entity, id: number): Promise<Record<string, unknown> | undefined> {
  const r = await sql<{ row_data: Record<string, unknown>; frontmatter: unknown }>`
    SELECT to_jsonb(x) - 'search' - 'frontmatter' AS row_data, row_to_json(x) -> 'frontmatter' AS frontmatter
      FROM ${table(subject, entity)} x WHERE x.id = ${id}`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  return entity === 'topic' ? { ...row.row_data, frontmatter: row.frontmatter ?? {} } : row.row_data;
}

/**
 * The card or episode a caller named, live, archived or deleted. A deleted card has no row
 * any more: its id is found through the versions that name its slug (the latest card of
 * that slug, should one have been deleted and another created after it).
 */
async function resolveTarget(db: Db | Trx, ctx: BrainContext, input: { subject?: string | undefined; slug?: string | undefined; episodeId?: number | undefined }): Promise<Target> {
  const subject = targetSubject(ctx, input.subject);
  if (input.episodeId !== undefined) {
    const id = input.episodeId;
    const current = await currentRow(db, subject, 'episode', id);
    if (!current) {
      const kept = await db.withSchema(subject).selectFrom('versions').select('id').where('entity', '=', 'episode').where('entity_id', '=', id).limit(1).executeTakeFirst();
      if (!kept) throw new BrainError('not_found', `episode ${id} does not exist in ${subject}`, "Read a card's timeline (get with include timeline) to find the episode's id.");
    }
    return { subject, entity: 'episode', id, episodeId: id, ...(current ? { current } : {}) };
  }
  const s = input.slug!;
  const live = await db.withSchema(subject).selectFrom('topics').select('id').where('slug', '=', s).executeTakeFirst();
  if (live) return { subject, entity: 'topic', id: live.id, slug: s, current: (await currentRow(db, subject, 'topic', live.id))! };
  const gone = await db
    .withSchema(subject)
    .selectFrom('versions')
    .select('entity_id')
    .where('entity', '=', 'topic')
    .where(sql<boolean>`row_data ->> 'slug' = ${s}`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!gone) {
    throw new BrainError('not_found', `the card ${subject}:${s} does not exist (it never did in ${subject})`, 'Search first (search tool) to find the right slug.', {
      details: { field: 'slug' },
    });
  }
  return { subject, entity: 'topic', id: gone.entity_id, slug: s };
}

const short = (v: unknown): string => {
  if (v === null || v === undefined || v === '') return '(empty)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

const lineCount = (v: unknown): number => (typeof v === 'string' && v !== '' ? v.replace(/\n$/, '').split('\n').length : 0);

/** What differs between two states of a row, field by field (the long text as a line diff). */
function compare(entity: Entity, before: Record<string, unknown>, after: Record<string, unknown>): { changes: FieldChange[]; text?: LineDiff } {
  const changes: FieldChange[] = [];
  const fields = entity === 'topic' ? ['slug', 'title', 'kind', 'summary'] : ['title', 'kind', 'occurred_at', 'summary', 'source_label'];
  for (const f of fields) if ((before[f] ?? '') !== (after[f] ?? '')) changes.push({ field: f, from: short(before[f]), to: short(after[f]) });
  if (entity === 'topic') {
    if ((before.timeline ?? '') !== (after.timeline ?? '')) {
      const d = lineDiff(String(before.timeline ?? ''), String(after.timeline ?? ''));
      changes.push({ field: 'timeline', from: `${lineCount(before.timeline)} lines`, to: `${lineCount(after.timeline)} lines (+${d.added} −${d.removed})` });
    }
    if (JSON.stringify(before.frontmatter ?? {}) !== JSON.stringify(after.frontmatter ?? {})) changes.push({ field: 'frontmatter', from: short(before.frontmatter), to: short(after.frontmatter) });
    const wasArchived = before.archived_at != null;
    const isArchived = after.archived_at != null;
    if (wasArchived !== isArchived || (before.merged_into ?? null) !== (after.merged_into ?? null)) {
      const state = (archived: boolean, into: unknown) => (archived ? (into ? `archived, merged into ${String(into)}` : 'archived') : 'live');
      changes.push({ field: 'status', from: state(wasArchived, before.merged_into), to: state(isArchived, after.merged_into) });
    }
  }
  const textField = entity === 'topic' ? 'body' : 'detail';
  const a = String(before[textField] ?? '');
  const b = String(after[textField] ?? '');
  return a === b ? { changes } : { changes, text: lineDiff(a, b) };
}

const iso = (d: Date | string) => new Date(d).toISOString();

export async function history(ctx: BrainContext, raw: z.input<typeof historyInput>): Promise<History> {
  const input = parseInput(historyInput, raw, 'history');
  // One snapshot for the whole read, so the numbering cannot shift under a concurrent write.
  return ctx.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const t = await resolveTarget(trx, ctx, input);
      const versions = trx.withSchema(t.subject).selectFrom('versions').where('entity', '=', t.entity).where('entity_id', '=', t.id);
      const nRows = Number((await versions.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      // Newest first, one more than shown: the oldest shown version is compared with the one before it.
      // With each, the outbox row of the same change (the triggers stamp both with the transaction's
      // now(), compared in SQL at full precision; the outbox index on `at` finds it): the
      // application's name for it. After a delete, the INSERT of the restore that recreated the row.
      const tableName = t.entity === 'topic' ? 'topics' : 'episodes';
      const outbox = sql.table(`${t.subject}.outbox`);
      const rows = (
        await sql<VersionRow & { app_operation: string | null; re_at: Date | null; re_actor: string | null; re_operation: string | null; re_reason: string | null }>`
          SELECT v.id, v.operation, v.row_data, v.frontmatter, v.changed_by, v.changed_at, v.reason,
                 (SELECT o.app_operation FROM ${outbox} o
                   WHERE o.at = v.changed_at AND o.table_name = ${tableName} AND o.row_id = ${String(t.id)} AND o.operation = v.operation
                   ORDER BY o.id LIMIT 1) AS app_operation,
                 re.at AS re_at, re.actor AS re_actor, re.app_operation AS re_operation, re.reason AS re_reason
            FROM ${sql.table(`${t.subject}.versions`)} v
            LEFT JOIN LATERAL (SELECT o.at, o.actor, o.app_operation, o.reason FROM ${outbox} o
                                WHERE v.operation = 'DELETE' AND o.at >= v.changed_at AND o.table_name = ${tableName}
                                  AND o.row_id = ${String(t.id)} AND o.operation = 'INSERT'
                                ORDER BY o.at, o.id LIMIT 1) re ON true
           WHERE v.entity = ${t.entity} AND v.entity_id = ${t.id}
           ORDER BY v.id DESC LIMIT ${input.limit + 1}`.execute(trx)
      ).rows;
      const rowOf = new Map(rows.map((r, i) => [nRows - i, r]));
      const total = t.current ? nRows + 1 : nRows;
      const stateOf = (k: number): Record<string, unknown> | undefined => {
        if (k === total && t.current) return t.current;
        const r = rowOf.get(k);
        if (!r) return undefined;
        return t.entity === 'topic' ? { ...r.row_data, frontmatter: r.frontmatter ?? {} } : r.row_data;
      };
      // v1: the row's INSERT, at its created_at (kept through deletes and restores); a card
      // imported with an older date has none, and shows its date with no author.
      const createdAt = (t.current ?? rows[0]?.row_data)?.created_at;
      const created =
        createdAt === undefined
          ? undefined
          : (
              await sql<{ at: Date; actor: string; app_operation: string | null; reason: string | null }>`
                SELECT at, actor, app_operation, reason FROM ${outbox}
                 WHERE at = ${String(createdAt)}::timestamptz AND table_name = ${tableName} AND row_id = ${String(t.id)} AND operation = 'INSERT'
                 ORDER BY id LIMIT 1`.execute(trx)
            ).rows[0];

      const out: Version[] = [];
      for (let k = total; k >= Math.max(1, total - input.limit + 1); k--) {
        const state = stateOf(k);
        if (!state) break;
        const previous = k > 1 ? stateOf(k - 1) : undefined;
        const stampRow = k > 1 ? rowOf.get(k - 1) : undefined;
        let at: string;
        let by: string | null;
        let operation: string | null;
        let why: string | null;
        let origin: Version['origin'];
        if (stampRow && stampRow.operation === 'UPDATE') {
          at = iso(stampRow.changed_at);
          by = stampRow.changed_by;
          why = stampRow.reason;
          operation = stampRow.app_operation;
          origin = 'changed';
        } else if (stampRow) {
          at = iso(stampRow.re_at ?? stampRow.changed_at);
          by = stampRow.re_actor;
          why = stampRow.re_reason;
          operation = stampRow.re_operation;
          origin = 'recreated';
        } else {
          at = iso(created?.at ?? String(state.created_at ?? 0));
          by = created?.actor ?? null;
          why = created?.reason ?? null;
          operation = created?.app_operation ?? null;
          origin = 'created';
        }
        const diff = previous ? compare(t.entity, previous, state) : { changes: [] };
        out.push({
          version: k,
          current: k === total && t.current !== undefined,
          at,
          by,
          operation,
          reason: why,
          origin,
          archived: state.archived_at != null,
          mergedInto: (state.merged_into as string | null | undefined) ?? null,
          changes: diff.changes,
          ...(diff.text ? { text: diff.text } : {}),
          state,
        });
      }
      const last = rowOf.get(nRows);
      return {
        subject: t.subject,
        entity: t.entity,
        ...(t.slug !== undefined ? { slug: t.slug } : {}),
        ...(t.episodeId !== undefined ? { episodeId: t.episodeId } : {}),
        total,
        deleted: !t.current && last ? { at: iso(last.changed_at), by: last.changed_by, reason: last.reason } : null,
        versions: out,
      };
    });
}

export const restoreInput = z
  .object({ subject: subjectRef, slug: slug.optional(), episodeId: z.number().int().positive().optional(), version: z.number().int().positive(), reason })
  .refine((v) => (v.slug === undefined) !== (v.episodeId === undefined), 'name either a card (slug) or an episode (episodeId)');

export interface RestoreResult {
  subject: string;
  entity: Entity;
  slug?: string;
  episodeId?: number;
  /** The version put back. */
  restored: number;
  /** The version number of the state now current (a new one when something changed). */
  current: number;
  /** false when the card already read exactly as that version. */
  changed: boolean;
  /** true when the row had been deleted and was created again. */
  recreated: boolean;
}

/** `homelab:tool/restic` or `episode 12 in homelab`, for messages. */
export function targetName(r: { subject: string; slug?: string | undefined; episodeId?: number | undefined }): string {
  return r.slug !== undefined ? `${r.subject}:${r.slug}` : `episode ${r.episodeId} in ${r.subject}`;
}

/**
 * Puts a card or an episode back as it was in one of its versions (by its per-card number).
 * The state it replaces is kept as a new version, so a restore can be undone the same way.
 * A card's archived state is part of a version: restoring a version from before an archive
 * brings the card back (in personal, only personal's own role may; the database decides).
 */
export async function restore(ctx: BrainContext, raw: z.input<typeof restoreInput>): Promise<RestoreResult> {
  const input = parseInput(restoreInput, raw, 'restore');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  const what = input.slug !== undefined ? `${subject}:${input.slug}` : `episode ${input.episodeId} in ${subject}`;
  try {
    return await write(ctx, { operation: 'restore', reason: input.reason ?? `restore v${input.version}` }, async (trx) => {
      const t = await resolveTarget(trx, ctx, { ...input, subject });
      const count = async () =>
        Number(
          (await trx.withSchema(subject).selectFrom('versions').select((eb) => eb.fn.countAll<number>().as('n')).where('entity', '=', t.entity).where('entity_id', '=', t.id).executeTakeFirstOrThrow()).n,
        );
      const nRows = await count();
      const total = t.current ? nRows + 1 : nRows;
      if (input.version > total) {
        throw new BrainError('not_found', `${what} has no v${input.version}: its versions are v1 to v${total}`, `Call history for ${what} to see its versions.`, { details: { field: 'version' } });
      }
      if (t.current && input.version === total) {
        throw new BrainError('invalid_input', `v${input.version} is already the current version of ${what}; nothing to restore`, `Call history for ${what} and pick an earlier version.`, {
          details: { field: 'version' },
        });
      }
      const v = (await trx
        .withSchema(subject)
        .selectFrom('versions')
        .select(['id', 'row_data', 'frontmatter'])
        .where('entity', '=', t.entity)
        .where('entity_id', '=', t.id)
        .orderBy('id')
        .offset(input.version - 1)
        .limit(1)
        .executeTakeFirstOrThrow()) as Pick<VersionRow, 'id' | 'row_data' | 'frontmatter'>;
      const d = v.row_data as Record<string, string | number | boolean | null>;
      const values =
        t.entity === 'topic'
          ? {
              slug: d.slug,
              kind: d.kind,
              title: d.title,
              summary: d.summary,
              body: d.body,
              timeline: d.timeline,
              frontmatter: JSON.stringify(v.frontmatter ?? {}),
              // Versions from before archiving existed have no such keys: those were live.
              archived_at: d.archived_at ?? null,
              merged_into: d.merged_into ?? null,
            }
          : { kind: d.kind, occurred_at: d.occurred_at, date_only: d.date_only, title: d.title, summary: d.summary, detail: d.detail, source_label: d.source_label };
      const cols = Object.keys(values);
      const vals = Object.values(values);
      const target = table(subject, t.entity);
      const recreated = t.current === undefined;
      if (recreated) {
        await sql`INSERT INTO ${target} (id, ${sql.join(cols.map((c) => sql.ref(c)))}, created_at)
                  OVERRIDING SYSTEM VALUE VALUES (${t.id}, ${sql.join(vals)}, ${d.created_at})`.execute(trx);
        // A deleted card's tags and outgoing links were kept with it.
        const kept = d as unknown as { tags?: string[]; links?: { to_subject: string; to_slug: string; relation: LinkRelation; context: string }[] };
        for (const tag of kept.tags ?? []) await trx.withSchema(subject).insertInto('topic_tags').values({ topic_id: t.id, tag }).execute();
        for (const l of kept.links ?? []) {
          await trx.withSchema(subject).insertInto('links').values({ from_topic_id: t.id, to_subject: l.to_subject, to_slug: l.to_slug, relation: l.relation, context: l.context }).execute();
        }
      } else {
        await sql`UPDATE ${target} SET ${sql.join(cols.map((c, i) => sql`${sql.ref(c)} = ${vals[i]}`))} WHERE id = ${t.id}`.execute(trx);
      }
      const after = await count();
      const changed = recreated || after > nRows;
      return {
        subject,
        entity: t.entity,
        ...(t.slug !== undefined ? { slug: t.slug } : {}),
        ...(t.episodeId !== undefined ? { episodeId: t.episodeId } : {}),
        restored: input.version,
        current: recreated ? after + 1 : changed ? after + 1 : total,
        changed,
        recreated,
      };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    if (sqlStateOf(error) === '42501') throw archiveRefusal(error, what);
    return fromDatabaseError(error, `restore ${what} to v${input.version}`);
  }
}

/**
 * The archive guard's refusal (migrations/global/0008_archive_guard.sql) as the model should
 * read it: a project changed whether a personal card is archived.
 */
export function archiveRefusal(error: unknown, what: string): BrainError {
  const e = error as { message?: string; hint?: string };
  return new BrainError(
    'forbidden',
    `${what}: ${e.message ?? 'not permitted for this subject'}`,
    e.hint ?? 'Nothing was changed. Ask in a personal session to archive or merge this card.',
    { cause: error },
  );
}
