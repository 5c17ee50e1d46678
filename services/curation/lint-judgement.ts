// Lint's near-duplicates, decided by search before add's judgement (search/judgement.ts): a
// pair is reported when the same weighing that makes remember update a card (or flag it) says
// the two cards may be one thing. Title and embedding similarity only choose which pairs are
// weighed; a high trigram score alone ("Backup routine" and "Backup routine for laptops") or a
// high cosine alone (two homelab cards) no longer makes a report.
//
// Candidates: every pair of titles with pg_trgm similarity >= the lint's titleSimilarity, and
// each card's nearest cards by first-chunk cosine (lint-hooks.ts). Evidence per pair is what
// remember weighs for an incoming card (titles, all lexemes, cosine, kind); the pair is
// symmetric, so either card may play the incoming one.
import { sql } from 'kysely';
import { judgementModelFor, type JudgementModel } from '../search/calibration.js';
import { judgePair, pairEvidence, type CardLexemeSets } from '../search/judgement.js';
import { LEXEME_COLUMNS, lexemeSets, type LexemeRow } from '../search/similarity.js';
import type { LintRun } from './lint-batches.js';
import { similarTitles } from './similar-titles.js';

/**
 * The title similarity from which an import weighs a pair. Higher than lint's 0.3: at 0.3 the
 * trigram join over a 7,500-page import took 248 s (bench/gbrain/import-export.ts, busy
 * machine), most of the import; an import is about pages of the same name, and lint weighs the
 * rest, with vectors, once they exist.
 */
const IMPORT_TITLE_SIMILARITY = 0.6;

export interface CandidatePair {
  /** Slugs, `a` the older card (lower id). */
  a: string;
  b: string;
  titleSimilarity?: number;
  /** Raw cosine of the two cards' first chunks (the embedder's scale). */
  cosine?: number;
}

export interface JudgedDuplicate {
  a: string;
  b: string;
  /** P(same thing), 3 decimals. */
  score: number;
  /** 'same': remember would have updated `a` instead of writing `b`; 'possible-duplicate': it would have flagged `a`. */
  verdict: 'same' | 'possible-duplicate';
  /** Which candidate search found the pair. */
  by: 'title' | 'embedding' | 'title+embedding';
  titleSimilarity: number | null;
  cosine: number | null;
}

interface SlugLexemes extends CardLexemeSets {
  slug: string;
}

const LEXEME_PAGE = 500;

/**
 * Cards whose lexemes are held at once while pairs are weighed; the pairs are weighed a part at
 * a time, a card named in two parts read twice. All at once, a 100,000-page import's 17,245 title
 * pairs held the lexemes of 15,032 cards: 230-239 MB of JavaScript heap, the import's peak.
 */
export const JUDGE_CARDS_AT_ONCE = 1_000;

/** Shown in an import's report; the rest are counted (lint lists every one). */
const IMPORT_SHOWN = 20;

/**
 * After an import: the pages it created that the judgement calls the same thing (or possibly
 * the same) as another card of the subject. Import keeps slugs as they are (it must stay
 * lossless), so it never merges; it reports, with the call that would. Pairs alike by title
 * only and the keyword-only judgement: the new pages have no vectors yet.
 */
export async function importedDuplicates(run: LintRun, created: ReadonlySet<number>): Promise<{ count: number; shown: JudgedDuplicate[] }> {
  if (created.size === 0) return { count: 0, shown: [] };
  const titles = (await similarTitles(run, IMPORT_TITLE_SIMILARITY)) ?? [];
  // The import keeps the ids of the cards it created (not their slugs: a number a card, not a string).
  const slugs = [...new Set(titles.flatMap((p) => [p.a, p.b]))];
  const table = sql.table(`${run.ctx.subject.name}.topics`);
  const rows = slugs.length
    ? await run.step('imported-ids', async (trx) => (await sql<{ id: number; slug: string }>`SELECT id, slug FROM ${table} WHERE slug = ANY(${slugs}::text[])`.execute(trx)).rows, slugs.length)
    : [];
  const createdSlugs = new Set(rows.filter((r) => created.has(Number(r.id))).map((r) => r.slug));
  const pairs = titles.filter((p) => createdSlugs.has(p.a) || createdSlugs.has(p.b)).map((p) => ({ a: p.a, b: p.b, titleSimilarity: p.similarity }));
  const judged = await judgeDuplicates(run, pairs);
  return { count: judged.length, shown: judged.slice(0, IMPORT_SHOWN) };
}

/** Merges candidates found twice (by title and by embedding) into one pair. */
export function mergeCandidates(...lists: readonly CandidatePair[][]): Map<string, CandidatePair> {
  const out = new Map<string, CandidatePair>();
  for (const list of lists) {
    for (const p of list) {
      const key = `${p.a}\u0000${p.b}`;
      const seen = out.get(key);
      out.set(key, seen ? { ...seen, ...Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) } : { ...p });
    }
  }
  return out;
}

/** Title and whole-card lexemes of the live cards named, by slug. */
async function lexemesBySlug(run: LintRun, slugs: readonly string[]): Promise<Map<string, SlugLexemes>> {
  const table = sql.table(`${run.ctx.subject.name}.topics`);
  const out = new Map<string, SlugLexemes>();
  await run.batches(
    'duplicate-lexemes',
    slugs,
    async (trx, batch) => {
      const rows = await sql<{ slug: string; kind: string } & LexemeRow>`
        SELECT t.slug, t.kind, ${LEXEME_COLUMNS} FROM ${table} t WHERE t.slug = ANY(${batch}::text[]) AND t.archived_at IS NULL`.execute(trx);
      for (const r of rows.rows) out.set(r.slug, { slug: r.slug, kind: r.kind, ...lexemeSets(r) });
    },
    { initial: 100, max: LEXEME_PAGE },
  );
  return out;
}

/**
 * Weighs every candidate and keeps the pairs the judgement calls the same thing or possibly the
 * same with P(same) >= minScore, most likely first. A lint weighs hundreds of pairs where
 * remember weighs a few candidates, so it reports from its own threshold (lintAt), not flagAt. `model` is the embedder's calibration (the keyword-only one when the
 * subject has no vectors for it).
 */
export async function judgeDuplicates(
  run: LintRun,
  candidates: Iterable<CandidatePair>,
  model: JudgementModel = judgementModelFor(undefined),
  minScore = model.lintAt,
  cardsAtOnce = JUDGE_CARDS_AT_ONCE,
): Promise<JudgedDuplicate[]> {
  const out: JudgedDuplicate[] = [];
  let part: CandidatePair[] = [];
  let slugs = new Set<string>();
  const weigh = async (): Promise<void> => {
    const lexemes = await lexemesBySlug(run, [...slugs]);
    for (const p of part) {
      const a = lexemes.get(p.a);
      const b = lexemes.get(p.b);
      if (!a || !b) continue; // archived meanwhile
      const j = judgePair(pairEvidence(b, a, p.cosine, false, model), model);
      if ((j.verdict !== 'same' && j.verdict !== 'possible-duplicate') || j.pSame < minScore) continue;
      out.push({
        a: p.a,
        b: p.b,
        score: Number(j.pSame.toFixed(3)),
        verdict: j.verdict,
        by: p.titleSimilarity !== undefined && p.cosine !== undefined ? 'title+embedding' : p.titleSimilarity !== undefined ? 'title' : 'embedding',
        titleSimilarity: p.titleSimilarity ?? null,
        cosine: p.cosine === undefined ? null : Number(p.cosine.toFixed(3)),
      });
    }
    part = [];
    slugs = new Set();
  };
  for (const p of candidates) {
    if (part.length > 0 && slugs.size + 2 > cardsAtOnce) await weigh();
    part.push(p);
    slugs.add(p.a);
    slugs.add(p.b);
  }
  if (part.length > 0) await weigh();
  return out.sort((x, y) => y.score - x.score || (x.a < y.a ? -1 : x.a > y.a ? 1 : 0) || (x.b < y.b ? -1 : x.b > y.b ? 1 : 0));
}
