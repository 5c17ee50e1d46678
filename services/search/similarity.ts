// How alike a new card is to an existing one, for search-before-add. Lexical signals use
// the same lexemes full-text search uses (the brain's text-search configuration: stemmed,
// stop words dropped), so "Backups" and "backup" agree; the semantic signal is the cosine
// similarity of the best chunk from the vector search.
import { sql } from 'kysely';
import type { Db } from '../knowledge/context.js';
import type { CardRef } from './types.js';

/** Dice coefficient of two sets: 2|A∩B| / (|A| + |B|); 0 when both are empty. */
export function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size + b.size === 0) return 0;
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return (2 * common) / (a.size + b.size);
}

export async function lexemesOf(db: Db, texts: readonly string[]): Promise<Set<string>[]> {
  if (texts.length === 0) return [];
  const rows = await sql<{ i: number; lexemes: string[] | null }>`
    SELECT t.i, tsvector_to_array(to_tsvector(brain.text_search_config(), t.text)) AS lexemes
      FROM unnest(${[...texts]}::text[]) WITH ORDINALITY AS t(text, i) ORDER BY t.i`.execute(db);
  return rows.rows.map((r) => new Set(r.lexemes ?? []));
}

export interface CardLexemes {
  slug: string;
  kind: string;
  title: string;
  titleLexemes: Set<string>;
  /** Every lexeme of the card (its stored search vector: title, slug, summary, body, timeline). */
  allLexemes: Set<string>;
}

/**
 * The columns that give a topic's (alias `t`) title lexemes and every lexeme it is searched by:
 * remember's candidates (topicLexemes) and lint's pairs (curation/lint-judgement.ts) read them
 * so, and weigh them alike. The configuration is a subquery, read once per statement: the function
 * is not inlined (it sets its search_path), and called once per card in the relevance evidence it
 * cost about 40 microseconds a card (relevance.ts).
 */
export const LEXEME_COLUMNS = sql`tsvector_to_array(to_tsvector((SELECT brain.text_search_config()), t.title)) AS title_lexemes, tsvector_to_array(t.search) AS all_lexemes`;

export interface LexemeRow {
  title_lexemes: string[] | null;
  all_lexemes: string[] | null;
}

export function lexemeSets(r: LexemeRow): { titleLexemes: Set<string>; allLexemes: Set<string> } {
  return { titleLexemes: new Set(r.title_lexemes ?? []), allLexemes: new Set(r.all_lexemes ?? []) };
}

/** Title and whole-card lexemes of some topics, keyed by cardKey. */
export async function topicLexemes(db: Db, refs: readonly CardRef[]): Promise<Map<string, CardLexemes>> {
  const out = new Map<string, CardLexemes>();
  const bySubject = new Map<string, number[]>();
  for (const r of refs) if (r.entity === 'topic') bySubject.set(r.subject, [...(bySubject.get(r.subject) ?? []), r.id]);
  for (const [subject, ids] of bySubject) {
    const rows = await sql<{ id: number; slug: string; kind: string; title: string } & LexemeRow>`
      SELECT t.id, t.slug, t.kind, t.title, ${LEXEME_COLUMNS}
        FROM ${sql.table(`${subject}.topics`)} t WHERE t.id = ANY(${ids}::bigint[])`.execute(db);
    for (const r of rows.rows) out.set(`${subject}:topic:${Number(r.id)}`, { slug: r.slug, kind: r.kind, title: r.title, ...lexemeSets(r) });
  }
  return out;
}
