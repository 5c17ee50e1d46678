// What the subject already holds for a batch of planned pages: the card of each slug, each
// path's last import and each card's sidecar. Read a batch at a time (three statements for up to
// 500 pages) rather than the whole subject up front, so a re-import's memory does not grow with
// the brain: a page's last import record lists every episode, link and tag it wrote.
import { sql } from 'kysely';
import type { Db } from '../knowledge/context.js';

export interface PreviousPage {
  topic_id: number;
  sha256: string;
  imported: unknown;
}

export interface PreviousFile {
  rel_path: string;
  sha256: string;
}

export interface PreviousState {
  /** Slug → the card that has it (imported or not). */
  topicIds: Map<string, number>;
  /** Page path → what its last import recorded. */
  pages: Map<string, PreviousPage>;
  /** Card id → the sidecar recorded for it. */
  sidecars: Map<number, PreviousFile>;
}

export async function previousState(db: Db, subject: string, pages: readonly { relPath: string; slug: string }[]): Promise<PreviousState> {
  const s = db.withSchema(subject);
  const state: PreviousState = { topicIds: new Map(), pages: new Map(), sidecars: new Map() };
  if (pages.length === 0) return state;
  const slugs = pages.map((p) => p.slug);
  const paths = pages.map((p) => p.relPath);
  for (const r of await s.selectFrom('topics').select(['id', 'slug']).where(sql<boolean>`slug = ANY(${slugs}::text[])`).execute()) state.topicIds.set(r.slug, r.id);
  const rows = await s.selectFrom('gbrain_pages').select(['topic_id', 'rel_path', 'sha256', 'imported']).where(sql<boolean>`rel_path = ANY(${paths}::text[])`).execute();
  for (const r of rows) state.pages.set(r.rel_path, { topic_id: r.topic_id, sha256: r.sha256, imported: r.imported });
  const ids = [...state.topicIds.values()];
  if (ids.length) {
    const files = await s.selectFrom('gbrain_files').select(['topic_id', 'rel_path', 'sha256']).where('role', '=', 'sidecar').where('topic_id', 'in', ids).execute();
    for (const f of files) state.sidecars.set(f.topic_id!, { rel_path: f.rel_path, sha256: f.sha256 });
  }
  return state;
}

/** The stored hash of each file named (special files and sidecars of no page), by path. */
export async function storedFileHashes(db: Db, subject: string, paths: readonly string[]): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  const rows = await db.withSchema(subject).selectFrom('gbrain_files').select(['rel_path', 'sha256']).where(sql<boolean>`rel_path = ANY(${[...paths]}::text[])`).execute();
  return new Map(rows.map((r) => [r.rel_path, r.sha256]));
}
