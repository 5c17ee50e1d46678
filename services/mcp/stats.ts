// Counts per subject this brain can read: cards per kind, episodes, links, tags, raw data.
import { sql } from 'kysely';
import type { BrainContext } from '../knowledge/index.js';

export async function brainStats(ctx: BrainContext, subjects: readonly string[]): Promise<string> {
  const out: string[] = [];
  for (const s of subjects) {
    const t = (name: string) => sql.table(`${s}.${name}`);
    const kinds = await sql<{ kind: string; n: number }>`SELECT kind, count(*)::int AS n FROM ${t('topics')} GROUP BY kind ORDER BY n DESC, kind`.execute(ctx.db);
    const [c] = (
      await sql<{ episodes: number; links: number; tags: number; raw: number; documents: number }>`
        SELECT (SELECT count(*)::int FROM ${t('episodes')}) AS episodes, (SELECT count(*)::int FROM ${t('links')}) AS links,
               (SELECT count(DISTINCT tag)::int FROM ${t('topic_tags')}) AS tags, (SELECT count(*)::int FROM ${t('raw_data')}) AS raw,
               (SELECT count(*)::int FROM ${t('documents')}) AS documents`.execute(ctx.db)
    ).rows;
    const total = kinds.rows.reduce((a, r) => a + r.n, 0);
    out.push(
      `${s}: ${total} cards${total ? ` (${kinds.rows.map((r) => `${r.kind} ${r.n}`).join(', ')})` : ''}; ${c!.episodes} episodes, ${c!.links} links, ${c!.tags} tags, ${c!.raw} raw records, ${c!.documents} documents`,
    );
  }
  return out.join('\n');
}
