// The WHERE fragments of SearchFilters, for topics (alias t) and episodes (alias e), so the
// keyword and vector paths cannot drift apart.
import { sql, type RawBuilder } from 'kysely';
import type { SearchFilters } from './types.js';

export function topicFilter(schema: string, f: SearchFilters, alias = 't'): RawBuilder<unknown> {
  const a = sql.ref(alias);
  // Archived cards are out of search (knowledge/archive.ts), in both paths.
  const parts: RawBuilder<unknown>[] = [sql`${a}.archived_at IS NULL`];
  if (f.kinds.length > 0) parts.push(sql`${a}.kind = ANY(${[...f.kinds]}::text[])`);
  if (f.tags.length > 0) {
    parts.push(sql`EXISTS (SELECT 1 FROM ${sql.table(`${schema}.topic_tags`)} tt WHERE tt.topic_id = ${a}.id AND tt.tag = ANY(${[...f.tags]}::text[]))`);
  }
  if (f.since) parts.push(sql`${a}.updated_at >= ${f.since.toISOString()}::timestamptz`);
  if (f.until) parts.push(sql`${a}.updated_at < ${f.until.toISOString()}::timestamptz`);
  return sql.join(parts, sql` AND `);
}

export function episodeFilter(f: SearchFilters, alias = 'e'): RawBuilder<unknown> {
  const a = sql.ref(alias);
  const parts: RawBuilder<unknown>[] = [sql`true`];
  if (f.kinds.length > 0) parts.push(sql`${a}.kind = ANY(${[...f.kinds]}::text[])`);
  if (f.since) parts.push(sql`${a}.occurred_at >= ${f.since.toISOString()}::timestamptz`);
  if (f.until) parts.push(sql`${a}.occurred_at < ${f.until.toISOString()}::timestamptz`);
  return sql.join(parts, sql` AND `);
}

/** Whether episodes can match these filters at all (tags belong to topics only). */
export function wantsEpisodes(f: SearchFilters): boolean {
  return f.includeEpisodes && f.tags.length === 0;
}
