// Everything export needs from one subject, read in a handful of bulk queries (never one
// query per card: a 7,500-page brain would pay 7,500 round trips).
import { sql } from 'kysely';
import type { Db, Trx } from '../knowledge/context.js';
import type { EpisodeLike } from './episode-mapping.js';
import type { ImportedMeta } from './page-content.js';

export interface CardSnapshot {
  id: number;
  slug: string;
  kind: string;
  title: string;
  body: string;
  timeline: string;
  frontmatterText: string;
  tags: string[];
  episodes: EpisodeLike[];
  raw: { source: string; dataText: string }[];
  /** Set when the card was imported from a GBrain page. */
  page?: { relPath: string; original: Buffer; sha256: string; fingerprint: string; imported: ImportedMeta };
}

export interface FileSnapshot {
  relPath: string;
  role: 'special' | 'sidecar';
  topicId: number | null;
  bytes: Buffer;
  sha256: string;
  fingerprint: string | null;
}

export interface BrainSnapshot {
  cards: CardSnapshot[];
  files: FileSnapshot[];
}

/** bytea comes back as a Buffer from pg and as a Uint8Array from PGlite. */
export function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export interface SnapshotOptions {
  /** 'all' (default): every file of the subject; 'of-cards': only the sidecars of the cards loaded. */
  files?: 'all' | 'of-cards';
}

/** The cards of `subject` (all, or those with the given ids) with their tags, episodes, raw data and import record. */
export async function loadSnapshot(db: Db | Trx, subject: string, topicIds?: readonly number[], opts: SnapshotOptions = {}): Promise<BrainSnapshot> {
  const s = db.withSchema(subject);
  const only = topicIds ? [...topicIds] : undefined;
  const filesOf = opts.files === 'of-cards' ? { topicIds: only } : {};
  if (only && only.length === 0) return { cards: [], files: opts.files === 'of-cards' ? [] : await loadFiles(db, subject) };
  let topicsQ = s.selectFrom('topics').select(['id', 'slug', 'kind', 'title', 'body', 'timeline', sql<string>`frontmatter::text`.as('frontmatter_text')]);
  let tagsQ = s.selectFrom('topic_tags').select(['topic_id', 'tag']);
  let episodesQ = s
    .selectFrom('episodes as e')
    .innerJoin('episode_topics as et', 'et.episode_id', 'e.id')
    .select(['et.topic_id', 'e.id', 'e.kind', 'e.title', 'e.summary', 'e.detail', 'e.source_label', sql<string>`to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('date')]);
  let rawQ = s.selectFrom('raw_data').select(['topic_id', 'source', sql<string>`data::text`.as('data_text')]);
  let pagesQ = s.selectFrom('gbrain_pages').select(['topic_id', 'rel_path', 'original', 'sha256', 'fingerprint', 'imported']);
  if (only) {
    topicsQ = topicsQ.where('id', 'in', only);
    tagsQ = tagsQ.where('topic_id', 'in', only);
    episodesQ = episodesQ.where('et.topic_id', 'in', only);
    rawQ = rawQ.where('topic_id', 'in', only);
    pagesQ = pagesQ.where('topic_id', 'in', only);
  }
  // Sequential on purpose: the embedded brain has one connection, and on a server the
  // handful of queries is not worth a pool's worth of connections.
  const topics = await topicsQ.orderBy('slug').execute();
  const tags = await tagsQ.orderBy('topic_id').orderBy('tag').execute();
  const episodes = await episodesQ.orderBy('e.occurred_at', 'desc').orderBy('e.id', 'desc').execute();
  const raws = await rawQ.orderBy('topic_id').orderBy('source').execute();
  const pages = await pagesQ.execute();
  const files = await loadFiles(db, subject, filesOf);

  const cards = new Map<number, CardSnapshot>();
  for (const t of topics) {
    cards.set(t.id, { id: t.id, slug: t.slug, kind: t.kind, title: t.title, body: t.body, timeline: t.timeline, frontmatterText: t.frontmatter_text, tags: [], episodes: [], raw: [] });
  }
  for (const t of tags) cards.get(t.topic_id)?.tags.push(t.tag);
  for (const e of episodes) {
    cards.get(e.topic_id)?.episodes.push({ id: e.id, kind: e.kind, date: e.date, title: e.title, summary: e.summary, detail: e.detail, sourceLabel: e.source_label });
  }
  for (const r of raws) cards.get(r.topic_id)?.raw.push({ source: r.source, dataText: r.data_text });
  for (const p of pages) {
    const card = cards.get(p.topic_id);
    if (card) card.page = { relPath: p.rel_path, original: toBuffer(p.original), sha256: p.sha256, fingerprint: p.fingerprint, imported: p.imported as ImportedMeta };
  }
  return { cards: [...cards.values()], files };
}

/** The subject's stored GBrain files: all; or those of some cards (`topicIds`, undefined: all); or those of no card (`unattached`). */
export async function loadFiles(db: Db | Trx, subject: string, which: { topicIds?: readonly number[] | undefined; unattached?: boolean } = {}): Promise<FileSnapshot[]> {
  let q = db.withSchema(subject).selectFrom('gbrain_files').select(['rel_path', 'role', 'topic_id', 'bytes', 'sha256', 'fingerprint']);
  if (which.unattached) q = q.where('topic_id', 'is', null);
  if (which.topicIds) q = which.topicIds.length === 0 ? q.where(sql<boolean>`false`) : q.where('topic_id', 'in', [...which.topicIds]);
  const rows = await q.orderBy('rel_path').execute();
  return rows.map((r) => ({ relPath: r.rel_path, role: r.role, topicId: r.topic_id, bytes: toBuffer(r.bytes), sha256: r.sha256, fingerprint: r.fingerprint }));
}
