// Lint: what curation got wrong in one subject. On demand, never scheduled, and it never
// deletes a card: orphans, unexplained upcasts and duplicates are only reported; dead
// links are removed and near-duplicate tags merged only when asked to apply.
import { sql } from 'kysely';
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import { parseInput, write, type BrainContext, type Trx } from '../knowledge/index.js';

export const lintInput = z.object({
  apply: z
    .object({ deadLinks: z.boolean().default(false), mergeTags: z.boolean().default(false), requeueEmbeddings: z.boolean().default(false) })
    .default({ deadLinks: false, mergeTags: false, requeueEmbeddings: false }),
  /** Title similarity (pg_trgm, 0..1) at or above which two cards are reported as near-duplicates. */
  titleSimilarity: z.number().min(0.3).max(1).default(0.6),
  limit: z.number().int().min(1).max(1000).default(100),
});

export interface LintReport {
  subject: string;
  orphans: { slug: string; title: string }[];
  deadLinks: { from: string; toSubject: string; toSlug: string; relation: string }[];
  unexplainedUpcasts: { at: string; actor: string; table: string; slug: string | null; operation: string }[];
  duplicateTopics: { a: string; b: string; similarity: number; by: 'title' | 'embedding' }[];
  duplicateTags: { variants: string[]; keep: string }[];
  staleEmbeddings: number | null;
  notes: string[];
  applied: { deadLinksRemoved: number; tagsMerged: number; embeddingsRequeued: number };
}

/** Optional: how embedding-based checks reach the search layer when it is running. */
export interface LintEmbeddingHooks {
  similarPairs?(ctx: BrainContext, threshold: number, limit: number): Promise<{ a: string; b: string; similarity: number }[]>;
  staleCount?(ctx: BrainContext): Promise<number>;
  requeue?(ctx: BrainContext): Promise<number>;
}

/** yc-alum, yc_alum, "yc alum" and YC-Alum are one tag. */
export function normaliseTag(tag: string): string {
  return tag.trim().toLowerCase().replace(/[\s_]+/g, '-').replace(/-+/g, '-');
}

export async function lint(ctx: BrainContext, raw: z.input<typeof lintInput> = {}, hooks: LintEmbeddingHooks = {}): Promise<LintReport> {
  const input = parseInput(lintInput, raw, 'lint');
  const s = ctx.subject.name;
  const t = (name: string, schema = s) => sql.table(`${schema}.${name}`);
  const report: LintReport = {
    subject: s,
    orphans: [],
    deadLinks: [],
    unexplainedUpcasts: [],
    duplicateTopics: [],
    duplicateTags: [],
    staleEmbeddings: null,
    notes: [],
    applied: { deadLinksRemoved: 0, tagsMerged: 0, embeddingsRequeued: 0 },
  };

  report.orphans = (
    await sql<{ slug: string; title: string }>`
      SELECT t.slug, t.title FROM ${t('topics')} t
       WHERE NOT EXISTS (SELECT 1 FROM ${t('links')} l WHERE l.from_topic_id = t.id)
         AND NOT EXISTS (SELECT 1 FROM ${t('links')} l WHERE l.to_subject = ${s} AND l.to_slug = t.slug)
         AND NOT EXISTS (SELECT 1 FROM ${t('episode_topics')} et WHERE et.topic_id = t.id)
       ORDER BY t.slug LIMIT ${input.limit}`.execute(ctx.db)
  ).rows;

  // A link is dead when its target card is gone: in this subject, or in personal.
  const deadLinksQuery = (db: BrainContext['db'] | Trx) =>
    sql<{ id: number; from: string; toSubject: string; toSlug: string; relation: string }>`
      SELECT l.id, f.slug AS "from", l.to_subject AS "toSubject", l.to_slug AS "toSlug", l.relation
        FROM ${t('links')} l JOIN ${t('topics')} f ON f.id = l.from_topic_id
       WHERE (l.to_subject = ${s} AND NOT EXISTS (SELECT 1 FROM ${t('topics')} x WHERE x.slug = l.to_slug))
          OR (l.to_subject = ${PERSONAL} AND ${s} <> ${PERSONAL} AND NOT EXISTS (SELECT 1 FROM ${t('topics', PERSONAL)} x WHERE x.slug = l.to_slug))
       ORDER BY f.slug, l.to_slug`.execute(db);
  const dead = (await deadLinksQuery(ctx.db)).rows;
  report.deadLinks = dead.map(({ id: _id, ...rest }) => rest);

  // Upcasts without a reason: all of them in personal; a project's own ones from a project.
  report.unexplainedUpcasts = (
    await sql<{ at: Date; actor: string; table: string; slug: string | null; operation: string }>`
      SELECT at, actor, table_name AS "table", slug, operation FROM ${t('outbox', PERSONAL)}
       WHERE flagged ${ctx.subject.isPersonal ? sql`` : sql`AND actor = current_user`}
       ORDER BY id DESC LIMIT ${input.limit}`.execute(ctx.db)
  ).rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));

  try {
    report.duplicateTopics = (
      await sql<{ a: string; b: string; similarity: number }>`
        SELECT a.slug AS a, b.slug AS b, round(brain_ext.similarity(lower(a.title), lower(b.title))::numeric, 2)::float AS similarity
          FROM ${t('topics')} a JOIN ${t('topics')} b ON a.id < b.id
         WHERE brain_ext.similarity(lower(a.title), lower(b.title)) >= ${input.titleSimilarity}
         ORDER BY similarity DESC, a.slug LIMIT ${input.limit}`.execute(ctx.db)
    ).rows.map((r) => ({ ...r, by: 'title' as const }));
  } catch {
    report.notes.push('title similarity unavailable (pg_trgm is not installed)');
  }
  if (hooks.similarPairs) {
    const seen = new Set(report.duplicateTopics.map((d) => `${d.a}|${d.b}`));
    for (const p of await hooks.similarPairs(ctx, 0.9, input.limit)) {
      if (!seen.has(`${p.a}|${p.b}`)) report.duplicateTopics.push({ ...p, by: 'embedding' });
    }
  } else {
    report.notes.push('embedding similarity not checked (no embedder running)');
  }

  // Code-point order, the same on every server whatever its locale (PGlite and the test cluster
  // are C; the stack's PostgreSQL 17 is en_US.utf8, which sorted "YC Alum" after "yc_alum").
  const tags = (await sql<{ tag: string; n: number }>`SELECT tag, count(*)::int AS n FROM ${t('topic_tags')} GROUP BY tag ORDER BY tag COLLATE "C"`.execute(ctx.db)).rows;
  const groups = new Map<string, { tag: string; n: number }[]>();
  for (const tag of tags) groups.set(normaliseTag(tag.tag), [...(groups.get(normaliseTag(tag.tag)) ?? []), tag]);
  for (const variants of groups.values()) {
    if (variants.length < 2) continue;
    const keep = [...variants].sort((x, y) => y.n - x.n || x.tag.localeCompare(y.tag))[0]!.tag;
    report.duplicateTags.push({ variants: variants.map((v) => v.tag), keep });
  }

  report.staleEmbeddings = hooks.staleCount ? await hooks.staleCount(ctx) : null;

  const apply = input.apply;
  if (apply.deadLinks || apply.mergeTags) {
    await write(ctx, { operation: 'lint', reason: 'lint --apply' }, async (trx) => {
      if (apply.deadLinks) {
        const ids = (await deadLinksQuery(trx)).rows.map((r) => r.id);
        if (ids.length) await trx.withSchema(s).deleteFrom('links').where('id', 'in', ids).execute();
        report.applied.deadLinksRemoved = ids.length;
      }
      if (apply.mergeTags) {
        report.applied.tagsMerged = 0; // write() may run this again after a lost connection
        for (const g of report.duplicateTags) {
          for (const variant of g.variants.filter((v) => v !== g.keep)) {
            await sql`INSERT INTO ${t('topic_tags')} (topic_id, tag) SELECT topic_id, ${g.keep} FROM ${t('topic_tags')} WHERE tag = ${variant} ON CONFLICT DO NOTHING`.execute(trx);
            await trx.withSchema(s).deleteFrom('topic_tags').where('tag', '=', variant).execute();
            report.applied.tagsMerged++;
          }
        }
      }
    });
  }
  if (apply.requeueEmbeddings && hooks.requeue) report.applied.embeddingsRequeued = await hooks.requeue(ctx);
  return report;
}

export function lintMarkdown(r: LintReport): string {
  const section = (title: string, lines: string[], empty: string) => [`## ${title} (${lines.length})`, ...(lines.length ? lines : [empty])];
  return [
    `# Lint of ${r.subject}`,
    ...section('Orphans (no links, no episodes) — reported only', r.orphans.map((o) => `- ${o.slug}: ${o.title}`), 'none'),
    ...section('Dead links — removed with apply', r.deadLinks.map((d) => `- ${d.from} —${d.relation}→ ${d.toSubject}:${d.toSlug}`), 'none'),
    ...section('Upcasts without a reason — reported only', r.unexplainedUpcasts.map((u) => `- ${u.at.slice(0, 16)} ${u.actor} ${u.operation} ${u.table}${u.slug ? ` ${u.slug}` : ''}`), 'none'),
    ...section('Near-duplicate cards — reported only', r.duplicateTopics.map((d) => `- ${d.a} ~ ${d.b} (${d.by} ${d.similarity})`), 'none'),
    ...section('Near-duplicate tags — merged with apply', r.duplicateTags.map((d) => `- ${d.variants.join(', ')} → ${d.keep}`), 'none'),
    `## Stale embeddings: ${r.staleEmbeddings ?? 'not checked'}`,
    ...(r.notes.length ? ['', ...r.notes.map((n) => `Note: ${n}`)] : []),
    ...(r.applied.deadLinksRemoved || r.applied.tagsMerged || r.applied.embeddingsRequeued
      ? ['', `Applied: ${r.applied.deadLinksRemoved} dead links removed, ${r.applied.tagsMerged} tags merged, ${r.applied.embeddingsRequeued} embeddings re-queued.`]
      : []),
  ].join('\n');
}
