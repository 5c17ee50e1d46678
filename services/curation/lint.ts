// Lint: what curation got wrong in one subject. On demand, never scheduled, and it never
// deletes a card: orphans, unexplained upcasts and duplicates are only reported; dead
// links are removed and near-duplicate tags merged only when asked to apply.
import { sql } from 'kysely';
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import { normaliseTag, parseInput, write, type BrainContext, type Trx } from '../knowledge/index.js';
import { judgementModelFor } from '../search/calibration.js';
import { LINT_DEFAULTS, withLintRun, type LintRun, type LintRunOptions } from './lint-batches.js';
import { judgeDuplicates, mergeCandidates, type CandidatePair, type JudgedDuplicate } from './lint-judgement.js';
import { similarTitles } from './similar-titles.js';

export type { LintRunOptions } from './lint-batches.js';

export const lintInput = z.object({
  apply: z
    .object({ deadLinks: z.boolean().default(false), mergeTags: z.boolean().default(false), requeueEmbeddings: z.boolean().default(false) })
    .default({ deadLinks: false, mergeTags: false, requeueEmbeddings: false }),
  /**
   * Title similarity (pg_trgm, 0..1) from which a pair of cards is weighed as a possible
   * duplicate (lint-judgement.ts decides; this only chooses what it looks at).
   */
  titleSimilarity: z.number().min(0.3).max(1).default(0.3),
  /** P(same thing) from which a weighed pair is reported; default the embedder's calibrated lintAt (calibration.ts). */
  duplicateScore: z.number().min(0).max(1).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});

export interface LintReport {
  subject: string;
  orphans: { slug: string; title: string }[];
  deadLinks: { from: string; toSubject: string; toSlug: string; relation: string }[];
  /** Links from live cards to archived ones (dead while archived), with the survivor of a merge. */
  archivedLinks: { from: string; toSubject: string; toSlug: string; relation: string; mergedInto: string | null }[];
  unexplainedUpcasts: { at: string; actor: string; table: string; slug: string | null; operation: string }[];
  /** Pairs search before add's judgement calls the same thing, or possibly the same: merge suggestions. */
  duplicateTopics: JudgedDuplicate[];
  duplicateTags: { variants: string[]; keep: string }[];
  staleEmbeddings: number | null;
  notes: string[];
  applied: { deadLinksRemoved: number; tagsMerged: number; embeddingsRequeued: number };
}


/** Optional: how embedding-based checks reach the search layer when it is running. */
export interface LintEmbeddingHooks {
  /** The embedder's model: the judgement weighs cosines on its calibrated scale. */
  model?: string;
  /** Each card's nearest cards by first-chunk cosine, as duplicate candidates; null where the subject has no vectors of this model. */
  duplicateCandidates?(run: LintRun): Promise<CandidatePair[] | null>;
  /** First-chunk cosines of these pairs (keyed `a\u0000b`), for candidates found by title. */
  pairCosines?(run: LintRun, pairs: readonly { a: string; b: string }[]): Promise<Map<string, number>>;
  staleCount?(ctx: BrainContext): Promise<number>;
  requeue?(ctx: BrainContext): Promise<number>;
}



/**
 * The lint of one subject. Runs as the subject's only lint (a second one waits up to
 * `opts.waitMs`, then gets an `unavailable` error saying lint is busy), in short batches that
 * hand the connection back between them, and stops between batches when `opts.signal` is
 * aborted (an `unavailable` error saying it was cancelled; nothing is applied then).
 */
export async function lint(ctx: BrainContext, raw: z.input<typeof lintInput> = {}, hooks: LintEmbeddingHooks = {}, opts: LintRunOptions = {}): Promise<LintReport> {
  const input = parseInput(lintInput, raw, 'lint');
  return withLintRun(ctx, opts, (run) => lintWith(run, input, hooks));
}

async function lintWith(run: LintRun, input: z.output<typeof lintInput>, hooks: LintEmbeddingHooks): Promise<LintReport> {
  const ctx = run.ctx;
  const s = ctx.subject.name;
  const t = (name: string, schema = s) => sql.table(`${schema}.${name}`);
  const report: LintReport = {
    subject: s,
    orphans: [],
    deadLinks: [],
    archivedLinks: [],
    unexplainedUpcasts: [],
    duplicateTopics: [],
    duplicateTags: [],
    staleEmbeddings: null,
    notes: [],
    applied: { deadLinksRemoved: 0, tagsMerged: 0, embeddingsRequeued: 0 },
  };

  // Each of these is one statement over indexes (links by source and by target, episode_topics
  // by topic, topics by slug, outbox by flag): linear in the subject, never a pairwise join.
  report.orphans = await run.step('orphans', async (trx) =>
    (
      await sql<{ slug: string; title: string }>`
        SELECT t.slug, t.title FROM ${t('topics')} t
         WHERE t.archived_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM ${t('links')} l WHERE l.from_topic_id = t.id)
           AND NOT EXISTS (SELECT 1 FROM ${t('links')} l WHERE l.to_subject = ${s} AND l.to_slug = t.slug)
           AND NOT EXISTS (SELECT 1 FROM ${t('episode_topics')} et WHERE et.topic_id = t.id)
         ORDER BY t.slug LIMIT ${input.limit}`.execute(trx)
    ).rows,
  );

  // A link is dead when its target card is gone: in this subject, or in personal. Links of an
  // archived card are its own business (they come back with it) and are not looked at.
  const deadLinksQuery = (db: Trx) =>
    sql<{ id: number; from: string; toSubject: string; toSlug: string; relation: string }>`
      SELECT l.id, f.slug AS "from", l.to_subject AS "toSubject", l.to_slug AS "toSlug", l.relation
        FROM ${t('links')} l JOIN ${t('topics')} f ON f.id = l.from_topic_id
       WHERE f.archived_at IS NULL
         AND ((l.to_subject = ${s} AND NOT EXISTS (SELECT 1 FROM ${t('topics')} x WHERE x.slug = l.to_slug))
              OR (l.to_subject = ${PERSONAL} AND ${s} <> ${PERSONAL} AND NOT EXISTS (SELECT 1 FROM ${t('topics', PERSONAL)} x WHERE x.slug = l.to_slug)))
       ORDER BY f.slug, l.to_slug`.execute(db);
  const dead = await run.step('dead-links', async (trx) => (await deadLinksQuery(trx)).rows);
  report.deadLinks = dead.map(({ id: _id, ...rest }) => rest);

  // Links to archived cards: not removed (the card may come back), reported with what to do. A
  // merge moves the links of its own subject; links from a project to a merged personal card
  // are out of personal's reach, so this is where the project learns to relink them.
  report.archivedLinks = await run.step('archived-links', async (trx) =>
    (
      await sql<LintReport['archivedLinks'][number]>`
        SELECT f.slug AS "from", l.to_subject AS "toSubject", l.to_slug AS "toSlug", l.relation, x.merged_into AS "mergedInto"
          FROM ${t('links')} l JOIN ${t('topics')} f ON f.id = l.from_topic_id
          JOIN ${t('topics')} x ON x.slug = l.to_slug AND l.to_subject = ${s}
         WHERE f.archived_at IS NULL AND x.archived_at IS NOT NULL
        UNION ALL
        SELECT f.slug, l.to_subject, l.to_slug, l.relation, x.merged_into
          FROM ${t('links')} l JOIN ${t('topics')} f ON f.id = l.from_topic_id
          JOIN ${t('topics', PERSONAL)} x ON x.slug = l.to_slug AND l.to_subject = ${PERSONAL} AND ${s} <> ${PERSONAL}
         WHERE f.archived_at IS NULL AND x.archived_at IS NOT NULL
         ORDER BY 1, 3 LIMIT ${input.limit}`.execute(trx)
    ).rows,
  );

  // Upcasts without a reason: all of them in personal; a project's own ones from a project.
  report.unexplainedUpcasts = (
    await run.step('unexplained-upcasts', async (trx) =>
      (
        await sql<{ at: Date; actor: string; table: string; slug: string | null; operation: string }>`
          SELECT at, actor, table_name AS "table", slug, operation FROM ${t('outbox', PERSONAL)}
           WHERE flagged ${ctx.subject.isPersonal ? sql`` : sql`AND actor = current_user`}
           ORDER BY id DESC LIMIT ${input.limit}`.execute(trx)
      ).rows,
    )
  ).map((r) => ({ ...r, at: new Date(r.at).toISOString() }));

  report.duplicateTopics = (await duplicates(run, input.titleSimilarity, input.duplicateScore, hooks, report.notes)).slice(0, input.limit);

  // Code-point order, the same on every server whatever its locale (PGlite and the test cluster
  // are C; the stack's PostgreSQL 17 is en_US.utf8, which sorted "YC Alum" after "yc_alum").
  const tags = await run.step(
    'tags',
    async (trx) => (await sql<{ tag: string; n: number }>`SELECT tag, count(*)::int AS n FROM ${t('topic_tags')} GROUP BY tag ORDER BY tag COLLATE "C"`.execute(trx)).rows,
  );
  // Every write path stores tags normalised (knowledge/tags.ts); variants are tags written
  // before that, or by hand. They merge into the spelling a write would store now.
  const groups = new Map<string, { tag: string; n: number }[]>();
  for (const tag of tags) {
    const key = normaliseTag(tag.tag);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), tag]);
  }
  for (const [keep, variants] of groups) {
    if (variants.length < 2) continue;
    report.duplicateTags.push({ variants: variants.map((v) => v.tag), keep });
  }

  const staleCount = hooks.staleCount;
  report.staleEmbeddings = staleCount ? await run.step('stale-embeddings', (trx) => staleCount({ ...ctx, db: trx })) : null;

  // Past this point lint writes: the last chance to stop with nothing applied.
  run.throwIfCancelled();
  const apply = input.apply;
  if (apply.deadLinks || apply.mergeTags) {
    await write(ctx, { operation: 'lint', reason: 'lint --apply' }, async (trx) => {
      await sql`SELECT set_config('statement_timeout', ${String(LINT_DEFAULTS.statementTimeoutMs)}, true)`.execute(trx);
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

/**
 * Near-duplicate cards: pairs alike by title or by embedding, weighed by the judgement search
 * before add uses (lint-judgement.ts), on the embedder's calibration where the subject has its
 * vectors and the keyword-only one otherwise.
 */
async function duplicates(run: LintRun, titleSimilarity: number, minScore: number | undefined, hooks: LintEmbeddingHooks, notes: string[]): Promise<JudgedDuplicate[]> {
  const titlePairs = await similarTitles(run, titleSimilarity);
  if (titlePairs === null) notes.push('title similarity unavailable (pg_trgm is not installed)');
  const byTitle: CandidatePair[] = (titlePairs ?? []).map((p) => ({ a: p.a, b: p.b, titleSimilarity: p.similarity }));
  const byEmbedding = hooks.duplicateCandidates ? await hooks.duplicateCandidates(run) : null;
  if (byEmbedding === null) {
    notes.push(hooks.duplicateCandidates ? 'embedding similarity not checked (no embeddings of this model yet)' : 'embedding similarity not checked (no embedder running)');
    return judgeDuplicates(run, byTitle, judgementModelFor(undefined), minScore);
  }
  const candidates = mergeCandidates(byTitle, byEmbedding);
  const missing = [...candidates.values()].filter((p) => p.cosine === undefined);
  const cosines = hooks.pairCosines && missing.length ? await hooks.pairCosines(run, missing) : new Map<string, number>();
  for (const p of missing) {
    const c = cosines.get(`${p.a}\u0000${p.b}`);
    if (c !== undefined) p.cosine = c;
  }
  return judgeDuplicates(run, candidates.values(), judgementModelFor(hooks.model), minScore);
}


function duplicateEvidence(d: JudgedDuplicate): string {
  return [d.titleSimilarity !== null ? `title ${d.titleSimilarity}` : '', d.cosine !== null ? `cosine ${d.cosine}` : ''].filter(Boolean).join(', ') || d.by;
}

export function lintMarkdown(r: LintReport): string {
  const section = (title: string, lines: string[], empty: string) => [`## ${title} (${lines.length})`, ...(lines.length ? lines : [empty])];
  return [
    `# Lint of ${r.subject}`,
    ...section('Orphans (no links, no episodes) — reported only', r.orphans.map((o) => `- ${o.slug}: ${o.title}`), 'none'),
    ...section('Dead links — removed with apply', r.deadLinks.map((d) => `- ${d.from} —${d.relation}→ ${d.toSubject}:${d.toSlug}`), 'none'),
    ...section(
      'Links to archived cards — reported only: relink, or unarchive the card',
      r.archivedLinks.map((d) => `- ${d.from} —${d.relation}→ ${d.toSubject}:${d.toSlug} (${d.mergedInto ? `merged into ${d.toSubject}:${d.mergedInto}: link to that instead` : 'archived'})`),
      'none',
    ),
    ...section('Upcasts without a reason — reported only', r.unexplainedUpcasts.map((u) => `- ${u.at.slice(0, 16)} ${u.actor} ${u.operation} ${u.table}${u.slug ? ` ${u.slug}` : ''}`), 'none'),
    // Lint never merges: it says which call would, for the human (or the model, asked by one) to decide.
    ...section(
      'Near-duplicate cards — reported only; to merge: archive with slug (the one to fold in) and into (the one to keep)',
      r.duplicateTopics.map(
        (d) =>
          `- ${d.a} ~ ${d.b} (${d.verdict === 'same' ? 'likely the same' : 'possibly the same'}, p ${d.score}; ${duplicateEvidence(d)}) → e.g. archive {slug: "${d.b}", into: "${d.a}"}, or link them if both should stay`,
      ),
      'none',
    ),
    ...section('Near-duplicate tags — merged with apply', r.duplicateTags.map((d) => `- ${d.variants.join(', ')} → ${d.keep}`), 'none'),
    `## Stale embeddings: ${r.staleEmbeddings ?? 'not checked'}`,
    ...(r.notes.length ? ['', ...r.notes.map((n) => `Note: ${n}`)] : []),
    ...(r.applied.deadLinksRemoved || r.applied.tagsMerged || r.applied.embeddingsRequeued
      ? ['', `Applied: ${r.applied.deadLinksRemoved} dead links removed, ${r.applied.tagsMerged} tags merged, ${r.applied.embeddingsRequeued} embeddings re-queued.`]
      : []),
  ].join('\n');
}
