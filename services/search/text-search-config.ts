// Changing the brain's text-search language. The configuration lives in brain.settings
// (read by brain.text_search_config() in the write trigger and in every query), so a change
// is one settings update plus a reindex of every subject's stored vectors: until a card is
// reindexed its lexemes are stemmed the old way and queries stemmed the new way miss it.
// Both happen in one transaction, so nobody sees the mix. Admin only: no app role may write
// brain.settings, and the reindex touches every subject.
//
// The reindex writes `search` directly with the same helpers the trigger uses. The write
// trigger sees unchanged content, so updated_at, versions and the outbox stay as they are
// (a language change is not an edit of anyone's cards), and embeddings are not redone.
import { ident, inTransaction, type SqlSession } from '../../db/sql.js';

export interface ReindexReport {
  config: string;
  previous: string;
  reindexed: { subject: string; topics: number; episodes: number }[];
}

/** Sets the text-search configuration (e.g. 'german', 'simple') and reindexes `subjects`. */
export async function setTextSearchConfig(admin: SqlSession, config: string, subjects: readonly string[]): Promise<ReindexReport> {
  return inTransaction(admin, async () => {
    // The cast refuses a configuration that does not exist (42704), before anything changes.
    const [known] = await admin.query<{ cfg: string }>('SELECT $1::regconfig::text AS cfg', [config]);
    const [prev] = await admin.query<{ cfg: string }>('SELECT brain.text_search_config()::text AS cfg');
    await admin.query(
      `INSERT INTO brain.settings (key, value) VALUES ('text_search_config', $1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [known!.cfg],
    );
    const reindexed = await reindexIn(admin, subjects);
    return { config: known!.cfg, previous: prev!.cfg, reindexed };
  });
}

/** Recomputes every card's full-text vector with the configuration in force (run inside a transaction). */
export async function reindexIn(admin: SqlSession, subjects: readonly string[]): Promise<ReindexReport['reindexed']> {
  const out: ReindexReport['reindexed'] = [];
  for (const subject of subjects) {
    const s = ident(subject);
    const [t] = await admin.query<{ n: number }>(
      `WITH u AS (UPDATE ${s}.topics SET search = brain.topic_search_vector(brain.text_search_config(), title, slug, summary, body, timeline) RETURNING 1)
       SELECT count(*)::int AS n FROM u`,
    );
    const [e] = await admin.query<{ n: number }>(
      `WITH u AS (UPDATE ${s}.episodes SET search = brain.episode_search_vector(brain.text_search_config(), title, summary, detail, source_label) RETURNING 1)
       SELECT count(*)::int AS n FROM u`,
    );
    out.push({ subject, topics: t!.n, episodes: e!.n });
  }
  return out;
}

/** Reindex without changing the language (e.g. after a dictionary update on the server). */
export async function reindexTextSearch(admin: SqlSession, subjects: readonly string[]): Promise<ReindexReport['reindexed']> {
  return inTransaction(admin, () => reindexIn(admin, subjects));
}
