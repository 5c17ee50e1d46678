// Full-text retrieval over every readable subject in one statement: topics and episodes,
// matched with brain.search_query() (any-word, phrases and exclusions strict; a phrase found
// nowhere falls back to its words) and ranked by cover density. Ranks are comparable across
// schemas: same function, same configuration.
// On big tables the rows to rank are narrowed to the question's rarer words first
// (selectivity.ts), with the plain any-word match as the fallback when that finds nothing.
import { sql, type RawBuilder } from 'kysely';
import type { Db, Trx } from '../knowledge/context.js';
import { searchColumnStats } from './column-stats.js';
import { RANKING } from './ranking.js';
import { DEFAULT_PLAN_LIMITS, planMatch, type MatchPlan, type PlanLimits } from './selectivity.js';
import { episodeFilter, topicFilter, wantsEpisodes } from './sql-filters.js';
import { wordsOf, type TextQuery } from './text-query.js';
import type { CardRef, Entity, SearchFilters } from './types.js';

export interface KeywordHit extends CardRef {
  rank: number;
  kind: string;
  /** Episodes: when it happened; null for topics. */
  occurredAt: Date | null;
}

export interface KeywordResult {
  hits: KeywordHit[];
  /** The quoted phrases matched nowhere, so their words were searched as plain words instead. */
  phrasesRelaxed: boolean;
  /** Tables ('subject.topics') whose rows to rank were narrowed to the rarer words, and how. */
  narrowed: Map<string, MatchPlan>;
  /** The narrowed match found nothing, so the plain any-word match ran instead. */
  widened: boolean;
}

export function hasSearchableText(q: TextQuery): boolean {
  return /[\p{L}\p{N}]/u.test(`${q.phrases} ${q.words}`);
}

/** The CTE every full-text statement starts with: the configuration in force and the two tsqueries. */
export function queryCte(q: TextQuery): RawBuilder<unknown> {
  return sql`q AS (SELECT s.match, s.rank, brain.text_search_config() AS cfg
                     FROM brain.search_query(brain.text_search_config(), ${q.phrases}, ${q.exclusions}, ${q.words}) s)`;
}

interface Part {
  subject: string;
  entity: Entity;
  table: 'topics' | 'episodes';
}

const partKey = (p: Part) => `${p.subject}.${p.table}`;

function partsOf(subjects: readonly string[], filters: SearchFilters): Part[] {
  const parts: Part[] = [];
  for (const subject of subjects) {
    if (filters.includeTopics) parts.push({ subject, entity: 'topic', table: 'topics' });
    if (wantsEpisodes(filters)) parts.push({ subject, entity: 'episode', table: 'episodes' });
  }
  return parts;
}

export interface KeywordOptions {
  /** How big tables are planned (selectivity.ts). */
  limits?: PlanLimits;
  /** ts_rank_cd's normalisation flags (ranking.ts). */
  normalisation?: number;
}

export async function keywordSearch(db: Db | Trx, subjects: readonly string[], q: TextQuery, filters: SearchFilters, limit: number, options: KeywordOptions = {}): Promise<KeywordResult> {
  const strict = await keywordSearchAsTyped(db, subjects, q, filters, limit, options);
  if (strict.hits.length > 0 || q.phrases.trim() === '') return strict;
  // A quoted phrase found nowhere: people quote what they half remember ("backup window" for
  // "the window for backups"), so its words are searched as plain words rather than nothing.
  const words = { ...q, phrases: '', words: wordsOf(q) };
  return { ...(await keywordSearchAsTyped(db, subjects, words, filters, limit, options)), phrasesRelaxed: true };
}

async function keywordSearchAsTyped(db: Db | Trx, subjects: readonly string[], q: TextQuery, filters: SearchFilters, limit: number, options: KeywordOptions): Promise<KeywordResult> {
  const limits = options.limits ?? DEFAULT_PLAN_LIMITS;
  const normalisation = options.normalisation ?? RANKING.rankNormalisation;
  const parts = partsOf(subjects, filters);
  const none: KeywordResult = { hits: [], narrowed: new Map(), widened: false, phrasesRelaxed: false };
  if (!hasSearchableText(q) || parts.length === 0) return none;
  // Quoted phrases are required, so they already select few rows: only plain words are narrowed.
  const narrowed = q.phrases.trim() === '' ? await planParts(db, parts, q.words, limits) : new Map<string, MatchPlan>();
  const hits = await rankParts(db, parts, q, filters, limit, narrowed, limits, normalisation);
  if (hits.length > 0 || narrowed.size === 0) return { hits, narrowed, widened: false, phrasesRelaxed: false };
  // Nothing anywhere: the tables ranked as they were found nothing already; only the planned ones run again, unplanned.
  const planned = parts.filter((p) => narrowed.has(partKey(p)));
  return { hits: await rankParts(db, planned, q, filters, limit, new Map(), limits, normalisation), narrowed, widened: true, phrasesRelaxed: false };
}

/** The plan of each table that needs one: pg_stats (cached) first, the query's lexemes only if some table has statistics. */
async function planParts(db: Db | Trx, parts: readonly Part[], words: string, limits: PlanLimits): Promise<Map<string, MatchPlan>> {
  const plans = new Map<string, MatchPlan>();
  if (limits.rankAll === Infinity) return plans;
  const stats = await searchColumnStats(db, parts);
  const planned = parts.filter((p) => (stats.get(partKey(p))?.rows ?? 0) > limits.rankAll);
  if (planned.length === 0) return plans;
  const { rows } = await sql<{ lexemes: string[] | null }>`SELECT brain.query_lexemes(brain.text_search_config(), ${words}) AS lexemes`.execute(db);
  const lexemes = rows[0]?.lexemes ?? [];
  for (const p of planned) {
    const plan = planMatch(lexemes, stats.get(partKey(p))!, limits);
    if (plan) plans.set(partKey(p), plan);
  }
  return plans;
}

/** A constant as a float8 literal (a bare decimal literal is numeric). */
function float8(x: number): RawBuilder<unknown> {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  return sql.raw(`${x}::float8`);
}

/** BM25's term-saturation and length-normalisation constants (the usual values). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface KeywordRow {
  subject: string;
  entity: Entity;
  id: number | string;
  kind: string;
  occurred_at: Date | string | null;
  rank: number;
}

/** One table's SELECT: every match ranked, or (planned) the best-scored candidates ranked. */
function partSelect(p: Part, q: TextQuery, filters: SearchFilters, limit: number, plan: MatchPlan | undefined, limits: PlanLimits, normalisation: number): RawBuilder<unknown> {
  const table = sql.table(`${p.subject}.${p.table}`);
  const filter = (alias: string) => (p.entity === 'topic' ? topicFilter(p.subject, filters, alias) : episodeFilter(filters, alias));
  const occurred = p.entity === 'episode' ? sql`x.occurred_at` : sql`NULL::timestamptz`;
  const head = sql`SELECT ${p.subject}::text AS subject, ${p.entity}::text AS entity, x.id, x.kind, ${occurred} AS occurred_at, ts_rank_cd(x.search, q.rank, ${sql.lit(normalisation)}) AS rank`;
  if (!plan) return sql`(${head} FROM ${table} x, q WHERE x.search @@ q.match AND ${filter('x')})`;
  const terms = plan.terms.map((t) => sql`(brain.lexeme_query(${t.lexemes}::text[]), ${t.weight}::float8)`);
  const excluded = q.exclusions.trim() === '' ? sql`` : sql` AND c.search @@ websearch_to_tsquery(q.cfg, ${q.exclusions})`;
  // Stage one reads only the index and the heap row, never the tsvector itself: each term's
  // cards, scored like BM25 with one occurrence per term (the weights of the terms a card holds,
  // damped by its size against the average: pg_column_size reads the stored length only), newest
  // first among equals. Stage two ranks the best with every word of the question. OFFSET 0 keeps
  // the lateral subquery a subquery run once per term: folded into one join of the terms with the
  // table, PGlite planned a scan of the table testing every card against every term (a 50-word
  // text on 2,000 cards took 700 ms in PGlite instead of 270).
  // The normaliser 1 + k1 * (1 - b + b * size / average), folded to A + B * size in float8: a
  // decimal literal is numeric in SQL, and numeric arithmetic over every candidate took a quarter
  // of a planned statement in PGlite (21.8 ms against 16.2 ms p50 at 7,500 pages).
  const b = limits.lengthDamping ?? BM25_B;
  const norm = sql`(${float8(1 + BM25_K1 * (1 - b))} + ${float8((BM25_K1 * b) / plan.averageSize)} * m.size)`;
  return sql`(${head}
      FROM (SELECT m.id FROM (VALUES ${sql.join(terms)}) w(term, weight)
             CROSS JOIN LATERAL (SELECT c.id, pg_column_size(c.search) AS size FROM ${table} c, q WHERE c.search @@ w.term${excluded} AND ${filter('c')} OFFSET 0) m
             GROUP BY m.id, m.size ORDER BY sum(w.weight) / ${norm} DESC, m.id DESC
             LIMIT ${sql.lit(Math.max(limit, 50) * limits.rerankFactor)}) best
      JOIN ${table} x ON x.id = best.id
     CROSS JOIN q)`;
}

/** The one statement that ranks the matches of every table (exported for the plan tests). */
export function rankStatement(subjects: readonly string[], q: TextQuery, filters: SearchFilters, limit: number, plans: ReadonlyMap<string, MatchPlan>, limits: PlanLimits = DEFAULT_PLAN_LIMITS): RawBuilder<KeywordRow> {
  return rankPartsStatement(partsOf(subjects, filters), q, filters, limit, plans, limits, RANKING.rankNormalisation);
}

function rankPartsStatement(parts: readonly Part[], q: TextQuery, filters: SearchFilters, limit: number, plans: ReadonlyMap<string, MatchPlan>, limits: PlanLimits, normalisation: number): RawBuilder<KeywordRow> {
  const selects = parts.map((p) => partSelect(p, q, filters, limit, plans.get(partKey(p)), limits, normalisation));
  return sql<KeywordRow>`WITH ${queryCte(q)}
    SELECT subject, entity, id, kind, occurred_at, rank::float8 AS rank FROM (${sql.join(selects, sql` UNION ALL `)}) hits
     ORDER BY rank DESC, subject, entity, id
     LIMIT ${limit}`;
}

async function rankParts(db: Db | Trx, parts: readonly Part[], q: TextQuery, filters: SearchFilters, limit: number, plans: ReadonlyMap<string, MatchPlan>, limits: PlanLimits, normalisation: number): Promise<KeywordHit[]> {
  const rows = await rankPartsStatement(parts, q, filters, limit, plans, limits, normalisation).execute(db);
  return rows.rows.map((r) => ({ subject: r.subject, entity: r.entity, id: Number(r.id), rank: Number(r.rank), kind: r.kind, occurredAt: r.occurred_at === null ? null : new Date(r.occurred_at) }));
}
