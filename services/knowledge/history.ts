// History and restore: every update or delete of a topic or an episode kept the previous
// row in versions (by trigger), so nothing written is lost by an overwrite.
import { sql } from 'kysely';
import { z } from 'zod';
import { requireUpcastReason, targetSubject, write, type BrainContext } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import type { LinkRelation } from '../../db/tables/links.table.js';
import { parseInput, reason, slug, subjectRef } from './schemas.js';

export interface Version {
  id: number;
  entity: 'topic' | 'episode';
  entityId: number;
  operation: 'UPDATE' | 'DELETE';
  changedAt: string;
  changedBy: string;
  reason: string | null;
  /** The row as it was before the change. */
  previous: Record<string, unknown>;
}

export const historyInput = z
  .object({ subject: subjectRef, slug: slug.optional(), episodeId: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).default(20) })
  .refine((v) => (v.slug === undefined) !== (v.episodeId === undefined), 'name either a card (slug) or an episode (episodeId)');

export async function history(ctx: BrainContext, raw: z.input<typeof historyInput>): Promise<Version[]> {
  const input = parseInput(historyInput, raw, 'history');
  const subject = targetSubject(ctx, input.subject);
  let q = ctx.db.withSchema(subject).selectFrom('versions').selectAll();
  if (input.episodeId !== undefined) {
    q = q.where('entity', '=', 'episode').where('entity_id', '=', input.episodeId);
  } else {
    // A deleted card has no row any more: find its id through the versions that name its slug.
    const s = input.slug!;
    q = q.where('entity', '=', 'topic').where((eb) =>
      eb.or([
        eb('entity_id', 'in', eb.selectFrom('topics').select('id').where('slug', '=', s)),
        eb(sql`row_data ->> 'slug'`, '=', s),
      ]),
    );
  }
  const rows = await q.orderBy('id', 'desc').limit(input.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    entity: r.entity,
    entityId: r.entity_id,
    operation: r.operation,
    changedAt: new Date(r.changed_at).toISOString(),
    changedBy: r.changed_by,
    reason: r.reason,
    previous: r.entity === 'topic' ? { ...r.row_data, frontmatter: r.frontmatter ?? {} } : r.row_data,
  }));
}

export const restoreInput = z.object({ subject: subjectRef, versionId: z.number().int().positive(), reason });

/**
 * Puts a topic or episode back as it was in a version. The state it replaces is itself
 * kept as a new version, so a restore can be undone the same way.
 */
export async function restore(ctx: BrainContext, raw: z.input<typeof restoreInput>): Promise<{ entity: 'topic' | 'episode'; id: number; restoredFrom: number; recreated: boolean }> {
  const input = parseInput(restoreInput, raw, 'restore');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  try {
    return await write(ctx, { operation: 'restore', reason: input.reason ?? `restore version ${input.versionId}` }, async (trx) => {
      const v = await trx.withSchema(subject).selectFrom('versions').selectAll().where('id', '=', input.versionId).executeTakeFirst();
      if (!v) throw new BrainError('not_found', `no version ${input.versionId} in ${subject}`, 'Call history for the card or episode to see its versions.');
      const d = v.row_data as Record<string, string | number | boolean | null>;
      const table = v.entity === 'topic' ? 'topics' : 'episodes';
      const values =
        v.entity === 'topic'
          ? { slug: d.slug, kind: d.kind, title: d.title, summary: d.summary, body: d.body, timeline: d.timeline, frontmatter: JSON.stringify(v.frontmatter ?? {}) }
          : { kind: d.kind, occurred_at: d.occurred_at, date_only: d.date_only, title: d.title, summary: d.summary, detail: d.detail, source_label: d.source_label };
      const exists = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`${subject}.${table}`)} WHERE id = ${v.entity_id}`.execute(trx);
      const recreated = (exists.rows[0]?.n ?? 0) === 0;
      const cols = Object.keys(values);
      const vals = Object.values(values);
      if (recreated) {
        await sql`INSERT INTO ${sql.table(`${subject}.${table}`)} (id, ${sql.join(cols.map((c) => sql.ref(c)))}, created_at)
                  OVERRIDING SYSTEM VALUE VALUES (${v.entity_id}, ${sql.join(vals)}, ${d.created_at})`.execute(trx);
        // A deleted card's tags and outgoing links were kept with it.
        const kept = v.row_data as { tags?: string[]; links?: { to_subject: string; to_slug: string; relation: LinkRelation; context: string }[] };
        for (const t of kept.tags ?? []) await trx.withSchema(subject).insertInto('topic_tags').values({ topic_id: v.entity_id, tag: t }).execute();
        for (const l of kept.links ?? []) {
          await trx.withSchema(subject).insertInto('links').values({ from_topic_id: v.entity_id, to_subject: l.to_subject, to_slug: l.to_slug, relation: l.relation, context: l.context }).execute();
        }
      } else {
        await sql`UPDATE ${sql.table(`${subject}.${table}`)} SET ${sql.join(cols.map((c, i) => sql`${sql.ref(c)} = ${vals[i]}`))} WHERE id = ${v.entity_id}`.execute(trx);
      }
      return { entity: v.entity, id: v.entity_id, restoredFrom: v.id, recreated };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `restore version ${input.versionId}`);
  }
}
