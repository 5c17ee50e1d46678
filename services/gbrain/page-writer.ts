// Writes planned pages inside the caller's transaction: the cards, then only what differs
// from each page's last import (tags, episodes, links and raw data the file no longer has
// are removed; what it newly has is added; what was added in claude-brain is left alone).
// Each statement carries the rows of every page in the batch: on the embedded brain a
// statement costs far more than a row, and a 7,500-page brain is ~60,000 rows.
import { sql } from 'kysely';
import type { Trx } from '../knowledge/context.js';
import { insertTags } from '../knowledge/tags.js';
import type { ImportedMeta } from './page-content.js';
import type { PagePlan } from './page-plan.js';

export interface PreviousImport {
  /** The card with this slug, when there is one (imported or not). */
  topicId?: number;
  /** What the last import of this page wrote. */
  imported?: ImportedMeta;
  /** The sidecar path recorded for this card, when there is one. */
  sidecarPath?: string;
}

export interface PageWrite {
  plan: PagePlan;
  prev: PreviousImport;
}

export interface PageWritten {
  topicId: number;
  created: boolean;
}

/** Rows per statement: far below Postgres's 65,535 parameters, whatever a page holds. */
const CHUNK = 500;

export async function writePages(trx: Trx, subject: string, pages: readonly PageWrite[]): Promise<PageWritten[]> {
  const s = trx.withSchema(subject);
  const cardOf = (p: PagePlan) => ({ kind: p.kind, title: p.title, summary: p.summary, body: p.body, timeline: p.timeline, frontmatter: p.frontmatterText });

  // Cards: new ones in one statement; existing ones one by one (a changed file is the rare case).
  const ids: number[] = [];
  const fresh = pages.map((w, i) => ({ w, i })).filter(({ w }) => w.prev.topicId === undefined);
  for (const part of chunks(fresh)) {
    const rows = await s.insertInto('topics').values(part.map(({ w }) => ({ slug: w.plan.slug, ...cardOf(w.plan) }))).returning(['id', 'slug']).execute();
    const bySlug = new Map(rows.map((r) => [r.slug, r.id]));
    for (const { w, i } of part) ids[i] = bySlug.get(w.plan.slug)!;
  }
  for (const [i, w] of pages.entries()) {
    if (w.prev.topicId === undefined) continue;
    ids[i] = w.prev.topicId;
    // The triggers keep no version and write no outbox row when nothing differs.
    await s.updateTable('topics').set(cardOf(w.plan)).where('id', '=', w.prev.topicId).execute();
  }

  // What each page's last import wrote and the file no longer has goes.
  for (const [i, { plan, prev }] of pages.entries()) {
    const before = prev.imported;
    if (!before) continue;
    const id = ids[i]!;
    const dropTags = before.tags.filter((t) => !plan.tags.includes(t));
    if (dropTags.length) await s.deleteFrom('topic_tags').where('topic_id', '=', id).where('tag', 'in', dropTags).execute();
    const dropLinks = before.links.filter((t) => !plan.links.has(t));
    if (dropLinks.length) {
      await s.deleteFrom('links').where('from_topic_id', '=', id).where('to_subject', '=', subject).where('relation', '=', 'mentions').where('to_slug', 'in', dropLinks).execute();
    }
    const dropRaw = before.raw.filter((src) => !(plan.sidecar?.raw ?? []).some((r) => r.source === src));
    if (dropRaw.length) await s.deleteFrom('raw_data').where('topic_id', '=', id).where('source', 'in', dropRaw).execute();
  }

  // Tags the file newly has (all of them for a new card).
  const tagRows = pages.flatMap(({ plan, prev }, i) => plan.tags.filter((t) => !(prev.imported?.tags ?? []).includes(t)).map((tag) => ({ topicId: ids[i]!, tag })));
  await insertTags(trx, subject, tagRows);

  // Episodes: a line still on the page keeps its episode; a line gone takes its episode along.
  const episodes: ImportedMeta['episodes'][] = pages.map(() => []);
  const pending: { page: number; e: PagePlan['episodes'][number] }[] = [];
  const dropEpisodes: number[] = [];
  for (const [i, { plan, prev }] of pages.entries()) {
    const left = [...plan.episodes];
    for (const e of prev.imported?.episodes ?? []) {
      const at = left.findIndex((p) => p.line === e.line);
      if (at === -1) dropEpisodes.push(e.id);
      else {
        episodes[i]!.push(e);
        left.splice(at, 1);
      }
    }
    pending.push(...left.map((e) => ({ page: i, e })));
  }
  for (const part of chunks(dropEpisodes)) await s.deleteFrom('episodes').where('id', 'in', part).execute();
  for (const part of chunks(pending)) {
    const rows = await s
      .insertInto('episodes')
      .values(part.map(({ e }) => ({ kind: e.kind, occurred_at: `${e.date}T00:00:00Z`, date_only: true, title: e.title, summary: e.summary, detail: e.detail, source_label: e.source })))
      .returning('id')
      .execute();
    // INSERT ... VALUES ... RETURNING gives the rows back in the order of VALUES.
    rows.forEach((r, k) => episodes[part[k]!.page]!.push({ id: r.id, line: part[k]!.e.line }));
    await s.insertInto('episode_topics').values(rows.map((r, k) => ({ episode_id: r.id, topic_id: ids[part[k]!.page]! }))).execute();
  }

  const linkRows = pages.flatMap(({ plan }, i) => [...plan.links].map(([to, context]) => ({ from_topic_id: ids[i]!, to_subject: subject, to_slug: to, relation: 'mentions' as const, context })));
  for (const part of chunks(linkRows)) {
    await s
      .insertInto('links')
      .values(part)
      .onConflict((oc) =>
        oc
          .columns(['from_topic_id', 'to_subject', 'to_slug', 'relation'])
          .doUpdateSet({ context: (eb) => eb.ref('excluded.context') })
          .where(sql<boolean>`links.context IS DISTINCT FROM excluded.context`),
      )
      .execute();
  }

  const rawRows = pages.flatMap(({ plan }, i) => (plan.sidecar?.raw ?? []).map((r) => ({ topic_id: ids[i]!, source: r.source, data: r.dataText })));
  for (const part of chunks(rawRows)) {
    await s
      .insertInto('raw_data')
      .values(part)
      .onConflict((oc) =>
        oc
          .columns(['topic_id', 'source'])
          .doUpdateSet({ data: (eb) => eb.ref('excluded.data'), fetched_at: sql`now()` })
          .where(sql<boolean>`raw_data.data::text IS DISTINCT FROM excluded.data::text`),
      )
      .execute();
  }

  const pageRows = pages.map(({ plan }, i) => {
    const imported: ImportedMeta = { title: plan.title, tags: plan.tags, episodes: episodes[i]!, links: [...plan.links.keys()], raw: (plan.sidecar?.raw ?? []).map((r) => r.source) };
    return { topic_id: ids[i]!, rel_path: plan.relPath, original: plan.original, sha256: plan.sha256, fingerprint: plan.fingerprint, imported: JSON.stringify(imported) };
  });
  for (const part of chunks(pageRows)) {
    await s
      .insertInto('gbrain_pages')
      .values(part)
      .onConflict((oc) =>
        oc.column('topic_id').doUpdateSet((eb) => ({
          rel_path: eb.ref('excluded.rel_path'),
          original: eb.ref('excluded.original'),
          sha256: eb.ref('excluded.sha256'),
          fingerprint: eb.ref('excluded.fingerprint'),
          imported: eb.ref('excluded.imported'),
          imported_at: sql`now()`,
        })),
      )
      .execute();
  }

  // Sidecars: a page whose sidecar went (or moved) loses its old record.
  for (const { plan, prev } of pages) {
    if (prev.sidecarPath !== undefined && prev.sidecarPath !== plan.sidecar?.relPath) await s.deleteFrom('gbrain_files').where('rel_path', '=', prev.sidecarPath).execute();
  }
  const fileRows = pages.flatMap(({ plan }, i) =>
    plan.sidecar ? [{ rel_path: plan.sidecar.relPath, role: 'sidecar' as const, topic_id: ids[i]!, bytes: plan.sidecar.bytes, sha256: plan.sidecar.sha256, fingerprint: plan.sidecar.fingerprint }] : [],
  );
  for (const part of chunks(fileRows)) {
    await s
      .insertInto('gbrain_files')
      .values(part)
      .onConflict((oc) =>
        oc.column('rel_path').doUpdateSet((eb) => ({
          role: eb.ref('excluded.role'),
          topic_id: eb.ref('excluded.topic_id'),
          bytes: eb.ref('excluded.bytes'),
          sha256: eb.ref('excluded.sha256'),
          fingerprint: eb.ref('excluded.fingerprint'),
          imported_at: sql`now()`,
        })),
      )
      .execute();
  }
  return pages.map((w, i) => ({ topicId: ids[i]!, created: w.prev.topicId === undefined }));
}

function chunks<T>(rows: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
