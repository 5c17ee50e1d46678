// Whether a hit is relevant at all, on an absolute scale. Fusion ranks by agreement between the
// lists, which says nothing about whether the best hit answers the question: "xyzzy plugh" has a
// nearest card too. Evidence is read for the candidates that may be shown:
//   - coverage: the share of the question's words the card holds (or a longer word they begin),
//     each weighted by how rare it is in the card's table (pg_stats' lexeme frequencies, as the
//     keyword planner uses them), so "chocolate cake recipe" against a card holding "recipe"
//     covers little;
//   - cosine and lift: the question against the card's nearest chunk, and how far that stands
//     above the median of the question's candidates (the offline model's cosine alone barely
//     tells an answer from noise; standing out does);
//   - titleInQuery: the card's whole title is in the question.
// A logistic model of them, fitted per embedder on the labelled question set
// (bench/search/questions.ts, calibration.ts), is the relevance shown on every hit (0-1);
// search() answers "nothing relevant" when the best hit is below the model's floor.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../knowledge/context.js';
import type { RelevanceModel } from './calibration.js';
import { searchColumnStats } from './column-stats.js';
import type { ColumnStats } from './selectivity.js';
import { cardKey, type CardRef } from './types.js';
import { vectorParam } from './vectors.js';

export interface Evidence {
  /** Rarity-weighted share of the question's lexemes the card holds (0-1); 0 when the question has none. */
  coverage: number;
  /** Cosine similarity of the question and the card's nearest chunk; null when the card has no vector of the query model. */
  cosine: number | null;
  /**
   * How far the cosine stands above the median of the question's first LIFT_CANDIDATES
   * candidates (0 when unknown). Nonsense has a nearest card too, but it does not stand out.
   */
  lift: number;
  /** Every word of the card's title is in the question ("what was that flurble thing again?" and the card "Flurble"). */
  titleInQuery: boolean;
}

export const NO_EVIDENCE: Evidence = Object.freeze({ coverage: 0, cosine: null, lift: 0, titleInQuery: false });

/**
 * A question that names a card's whole title is about that card, however many other words it
 * has: its relevance is at least this (above every floor).
 */
export const NAMED_BY_TITLE = 0.5;

/** Candidates whose median cosine is the baseline of `lift`. */
export const LIFT_CANDIDATES = 20;
const LIFT_MIN_CANDIDATES = 5;

export interface QueryProbe {
  /** The question as typed (phrases and words; exclusions left out). */
  text: string;
  /** The query embedding, with its model, when the semantic side ran. */
  vector?: { embedding: readonly number[]; model: string; dims: number } | undefined;
  /** Subjects whose schemas have chunk tables. */
  subjectsWithVectors: readonly string[];
}

/**
 * A question's lexeme of at least this many characters also counts as held when it begins one
 * of the card's ("back" in "how do we back up postgres?" and the card's "backup"): the stemmer
 * keeps the two apart, a person does not.
 */
const PREFIX_MIN = 4;

/**
 * Whether a card holds `lexeme` as the tsquery that asks it: the lexeme itself, or, from PREFIX_MIN
 * characters, any lexeme it begins. A binary search of the card's tsvector, where comparing with
 * tsvector_to_array() unpacked the whole vector once per word of the question. Built by quoting,
 * not parsed by a configuration: a lexeme is already normalised, and a parser would split
 * "foo-bar" into three. Quotes and backslashes doubled, as tsquery's input wants them.
 */
function lexemeQuery(lexeme: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''' || CASE WHEN length(${lexeme}) >= ${sql.lit(PREFIX_MIN)} THEN ':*' ELSE '' END)::tsquery`;
}

/** Inverse document frequency of a lexeme in one table; every lexeme weighs 1 in a table without statistics. */
function idf(stats: ColumnStats | undefined, lexeme: string): number {
  if (!stats || stats.minFrequency === null) return 1;
  const f = stats.frequencies.get(lexeme) ?? stats.minFrequency / 2;
  return Math.log(1 + 1 / Math.max(f, 1e-6));
}

/** Coverage and cosine for each of `refs` (keyed by cardKey), in one statement whatever their number. */
export async function gatherEvidence(db: Db, refs: readonly CardRef[], probe: QueryProbe): Promise<Map<string, Evidence>> {
  const out = new Map<string, Evidence>();
  if (refs.length === 0) return out;
  const tables = new Map<string, { subject: string; table: 'topics' | 'episodes'; ids: number[] }>();
  for (const r of refs) {
    const table = r.entity === 'topic' ? 'topics' : 'episodes';
    const key = `${r.subject}.${table}`;
    if (!tables.has(key)) tables.set(key, { subject: r.subject, table, ids: [] });
    tables.get(key)!.ids.push(r.id);
  }
  const stats = await searchColumnStats(db, [...tables.values()]);
  const v = probe.vector;
  const withCosine = (subject: string) => v !== undefined && probe.subjectsWithVectors.includes(subject);
  const vectorType = v && sql.raw(`brain_ext.vector(${v.dims})`);
  const parts = [...tables.values()].map(({ subject, table, ids }) => {
    const entity = table === 'topics' ? 'topic' : 'episode';
    const owner = table === 'topics' ? sql.raw('topic_id') : sql.raw('episode_id');
    const cosine =
      v && withCosine(subject)
        ? sql`(SELECT max(1 - ((c.embedding::${vectorType}) OPERATOR(brain_ext.<=>) q.vec))
                 FROM ${sql.table(`${subject}.chunks`)} c WHERE c.${owner} = x.id AND c.model = ${v.model} AND c.dims = ${sql.lit(v.dims)})`
        : sql`NULL::float8`;
    return sql`(SELECT ${subject}::text AS subject, ${entity}::text AS entity, x.id,
                       ARRAY(SELECT l FROM unnest(q.lex) l WHERE x.search @@ ${lexemeQuery(sql`l`)}) AS matched,
                       ${cosine}::float8 AS cosine,
                       coalesce((SELECT bool_and(t = ANY(q.lex)) FROM unnest(tsvector_to_array(to_tsvector(q.cfg, x.title))) t), false) AS title_in_query
                  FROM ${sql.table(`${subject}.${table}`)} x, q WHERE x.id = ANY(${ids}::bigint[]))`;
  });
  // The question's lexemes, its vector and the configuration once, in the same statement: every
  // row carries the lexemes. brain.text_search_config() is not inlined (it sets its search_path):
  // called once per card for its title, it took 0.8-1.0 ms of this statement's 3-4 at 7,500 pages;
  // the vector, once per table, 0.26 ms more (the bench's sparse vectors in their old text form).
  const vec = v && [...tables.values()].some((t) => withCosine(t.subject)) ? sql`${vectorParam(v.embedding)}::${vectorType}` : sql`NULL`;
  const { rows } = await sql<{ subject: string; entity: 'topic' | 'episode'; id: number; matched: string[]; cosine: number | null; title_in_query: boolean; lexemes: string[] }>`
    WITH q AS (SELECT c.cfg, ${vec} AS vec, ARRAY(SELECT DISTINCT l FROM unnest(brain.query_lexemes(c.cfg, ${probe.text})) l) AS lex
                 FROM (SELECT brain.text_search_config() AS cfg) c)
    SELECT e.*, q.lex AS lexemes FROM (${sql.join(parts, sql` UNION ALL `)}) e, q`.execute(db);
  const lexemes = rows[0]?.lexemes ?? [];
  for (const r of rows) {
    const s = stats.get(`${r.subject}.${r.entity === 'topic' ? 'topics' : 'episodes'}`);
    const total = lexemes.reduce((sum, l) => sum + idf(s, l), 0);
    const held = r.matched.reduce((sum, l) => sum + idf(s, l), 0);
    out.set(cardKey({ subject: r.subject, entity: r.entity, id: Number(r.id) }), {
      coverage: total === 0 ? 0 : held / total,
      cosine: r.cosine === null ? null : Number(r.cosine),
      lift: 0,
      titleInQuery: r.title_in_query,
    });
  }
  // The baseline is the candidates in rank order, the first LIFT_CANDIDATES of them.
  const cosines = refs
    .slice(0, LIFT_CANDIDATES)
    .map((r) => out.get(cardKey(r))?.cosine)
    .filter((c): c is number => c !== null && c !== undefined)
    .sort((a, b) => a - b);
  // Fewer candidates say nothing about what is typical for the question.
  if (cosines.length >= LIFT_MIN_CANDIDATES) {
    const median = cosines[Math.floor(cosines.length / 2)]!;
    for (const e of out.values()) if (e.cosine !== null) e.lift = e.cosine - median;
  }
  return out;
}

/** The probability-like relevance of one hit (0-1) under `model`. */
export function relevanceFrom(e: Evidence, model: RelevanceModel): number {
  const z =
    e.cosine === null
      ? model.keywordOnly.bias + model.keywordOnly.coverage * e.coverage
      : model.bias +
        model.coverage * e.coverage +
        model.cosine * ((e.cosine - model.scale.unrelated) / (model.scale.related - model.scale.unrelated)) +
        model.lift * (e.lift / (model.scale.related - model.scale.unrelated));
  const p = 1 / (1 + Math.exp(-z));
  return e.titleInQuery ? Math.max(p, NAMED_BY_TITLE) : p;
}

/** The floor the best hit's relevance must reach for a question to be answered at all: the keyword-only model has its own. */
export function floorFor(e: Evidence, model: RelevanceModel): number {
  return e.cosine === null ? model.keywordOnly.floor : model.floor;
}
