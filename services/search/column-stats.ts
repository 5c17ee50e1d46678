// What pg_stats knows about the `search` column of each searched table: its estimated rows
// and its most common lexemes with their frequencies (selectivity.ts plans with them).
// Reading and unpacking them costs far more than a search may spend (about 10 ms a table on
// a server), and they change only when the table is analysed, so they are cached per
// database handle for STATS_TTL_MS. The read runs as the subject's role: pg_stats shows a
// column's statistics only to a role that may read the column, so no subject learns the
// vocabulary of another.
import { sql } from 'kysely';
import type { Db, Trx } from '../knowledge/context.js';
import type { ColumnStats } from './selectivity.js';

/** How long a table's statistics are reused before they are read again. */
export const STATS_TTL_MS = 60_000;

export interface SearchTable {
  subject: string;
  table: 'topics' | 'episodes';
}

const tableKey = (t: SearchTable) => `${t.subject}.${t.table}`;

const NONE: ColumnStats = { rows: null, minFrequency: null, averageSize: null, frequencies: new Map() };

const cache = new WeakMap<object, Map<string, { at: number; stats: ColumnStats }>>();

/** Statistics of each table's search column, keyed 'subject.table'; NONE-like where there are none. */
export async function searchColumnStats(db: Db | Trx, tables: readonly SearchTable[], now = Date.now()): Promise<Map<string, ColumnStats>> {
  let byTable = cache.get(db);
  if (!byTable) cache.set(db, (byTable = new Map()));
  const stale = tables.filter((t) => {
    const hit = byTable.get(tableKey(t));
    return !hit || now - hit.at > STATS_TTL_MS;
  });
  if (stale.length > 0) {
    const rows = await sql<{ subject: string; tbl: string; rows: number | null; width: number | null; elems: string[] | null; freqs: number[] | null }>`
      SELECT p.subject, p.tbl, c.reltuples::float8 AS rows, s.avg_width AS width,
             s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs::float8[] AS freqs
        FROM unnest(${stale.map((t) => t.subject)}::text[], ${stale.map((t) => t.table)}::text[]) p(subject, tbl)
        LEFT JOIN pg_catalog.pg_class c ON c.oid = to_regclass(format('%I.%I', p.subject, p.tbl))
        LEFT JOIN pg_catalog.pg_stats s ON s.schemaname = p.subject AND s.tablename = p.tbl AND s.attname = 'search'`.execute(db);
    for (const r of rows.rows) {
      const stats = toColumnStats(r.rows, r.width, r.elems, r.freqs);
      const averageSize = stats.minFrequency === null ? null : await averageStoredSize(db, r.subject, r.tbl, stats.rows);
      byTable.set(`${r.subject}.${r.tbl}`, { at: now, stats: { ...stats, averageSize: averageSize ?? stats.averageSize } });
    }
  }
  return new Map(tables.map((t) => [tableKey(t), byTable.get(tableKey(t))?.stats ?? NONE]));
}

/** Rows whose stored size is averaged (averageStoredSize): 1 ms at 7,500 pages, within 3% of the full average. */
const SIZE_SAMPLE_ROWS = 500;

/**
 * The average stored size of the search column, in pg_column_size's terms (what keyword.ts's
 * first stage damps a card's score by). pg_stats.avg_width cannot serve: ANALYZE measures the
 * datum as the row holds it, and a tsvector TOASTed out of line is an 18-byte pointer there, so
 * at 7,500 GBrain pages topics averaged "18 bytes" against 3,446 stored, and a page's score was
 * divided by about 170 times its size. Taken from a sample of pages (REPEATABLE: the same pages
 * each time, so rankings do not move when the cache is refreshed).
 */
async function averageStoredSize(db: Db | Trx, subject: string, table: string, rows: number | null): Promise<number | null> {
  if (rows === null || !(rows > 0)) return null;
  const percent = Math.min(100, Math.max(0.01, (100 * SIZE_SAMPLE_ROWS) / rows));
  const r = await sql<{ size: number | null }>`
    SELECT avg(pg_column_size(search))::float8 AS size FROM ${sql.table(`${subject}.${table}`)} TABLESAMPLE SYSTEM (${sql.lit(percent)}) REPEATABLE (0)`.execute(db);
  const size = r.rows[0]?.size;
  return size === null || size === undefined || !(Number(size) > 0) ? null : Number(size);
}

/**
 * pg_stats's element statistics: the elements, then their frequencies followed by the lowest
 * and highest of those frequencies and the share of nulls (see pg_statistic, STATISTIC_KIND_MCELEM).
 */
function toColumnStats(rows: number | null, width: number | null, elems: string[] | null, freqs: number[] | null): ColumnStats {
  const estimate = rows === null ? null : Number(rows);
  if (!elems || !freqs || freqs.length < elems.length + 1) return { ...NONE, rows: estimate };
  const frequencies = new Map<string, number>();
  elems.forEach((e, i) => frequencies.set(e, Number(freqs[i])));
  return { rows: estimate, minFrequency: Number(freqs[elems.length]), averageSize: width === null ? null : Number(width), frequencies };
}
