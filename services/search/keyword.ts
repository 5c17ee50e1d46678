// Full-text retrieval over every readable subject in one statement: topics and episodes,
// matched with brain.search_query() (any-word, phrases and exclusions strict) and ranked by
// cover density. Ranks are comparable across schemas: same function, same configuration.
import { sql, type RawBuilder } from 'kysely';
import type { Db, Trx } from '../knowledge/context.js';
import { episodeFilter, topicFilter, wantsEpisodes } from './sql-filters.js';
import type { TextQuery } from './text-query.js';
import type { CardRef, SearchFilters } from './types.js';

export interface KeywordHit extends CardRef {
  rank: number;
}

/**
 * ts_rank_cd normalisation 1: divide by 1 + log(length). Without it a long card that mentions
 * every word once outranks the short card that is about them; with full length
 * normalisation (2) short stubs win everything. Chosen on bench/search/relevance.
 */
export const RANK_NORMALISATION = 1;

export function hasSearchableText(q: TextQuery): boolean {
  return /[\p{L}\p{N}]/u.test(`${q.phrases} ${q.words}`);
}

/** The CTE every full-text statement starts with: the configuration in force and the two tsqueries. */
export function queryCte(q: TextQuery): RawBuilder<unknown> {
  return sql`q AS (SELECT s.match, s.rank, brain.text_search_config() AS cfg
                     FROM brain.search_query(brain.text_search_config(), ${q.phrases}, ${q.exclusions}, ${q.words}) s)`;
}

export async function keywordSearch(db: Db | Trx, subjects: readonly string[], q: TextQuery, filters: SearchFilters, limit: number): Promise<KeywordHit[]> {
  if (!hasSearchableText(q) || subjects.length === 0) return [];
  const parts: RawBuilder<unknown>[] = [];
  for (const subject of subjects) {
    if (filters.includeTopics) {
      parts.push(sql`(SELECT ${subject}::text AS subject, 'topic'::text AS entity, t.id, ts_rank_cd(t.search, q.rank, ${sql.lit(RANK_NORMALISATION)}) AS rank
                        FROM ${sql.table(`${subject}.topics`)} t, q
                       WHERE t.search @@ q.match AND ${topicFilter(subject, filters)})`);
    }
    if (wantsEpisodes(filters)) {
      parts.push(sql`(SELECT ${subject}::text AS subject, 'episode'::text AS entity, e.id, ts_rank_cd(e.search, q.rank, ${sql.lit(RANK_NORMALISATION)}) AS rank
                        FROM ${sql.table(`${subject}.episodes`)} e, q
                       WHERE e.search @@ q.match AND ${episodeFilter(filters)})`);
    }
  }
  if (parts.length === 0) return [];
  const rows = await sql<KeywordHit>`WITH ${queryCte(q)}
    SELECT subject, entity, id, rank::float8 AS rank FROM (${sql.join(parts, sql` UNION ALL `)}) hits
     ORDER BY rank DESC, subject, entity, id
     LIMIT ${limit}`.execute(db);
  return rows.rows.map((r) => ({ subject: r.subject, entity: r.entity, id: Number(r.id), rank: Number(r.rank) }));
}
