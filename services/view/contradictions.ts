// Contradiction candidates for the health page: two cards the judgement says are about the same
// thing (or related: services/view/duplicates.ts) whose statements seem to disagree, by two
// lexical signs: the same word given different numbers ("port 7402" / "port 7403"), or the same
// sentence said in one card and denied in the other ("uses restic" / "no longer uses restic").
// Only reported, never acted on: a person reads both cards and decides.
import { sql } from 'kysely';
import type { Db } from '../knowledge/index.js';
import type { JudgedPair } from './duplicates.js';

export interface Contradiction {
  a: string;
  b: string;
  /** What disagrees: the sentence (or word and numbers) from each card. */
  saysA: string;
  saysB: string;
  sign: 'number' | 'negation';
}

const NEGATION = /\b(?:not|never|no longer|no|don't|doesn't|isn't|aren't|won't|cannot|can't|stopped|avoid|instead of)\b/i;
const STOP = new Set(['the', 'and', 'for', 'with', 'that', 'this', 'are', 'was', 'were', 'use', 'uses', 'used', 'has', 'have', 'from', 'into', 'our', 'its', 'but']);

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && s.length < 400);
}

function words(s: string): Set<string> {
  return new Set(
    s
      .toLowerCase()
      .replace(new RegExp(NEGATION.source, 'gi'), ' ')
      .split(/[^\p{L}\p{N}.+-]+/u)
      .map((w) => w.replace(/^[.+-]+|[.+-]+$/g, ''))
      .filter((w) => w.length >= 3 && !STOP.has(w)),
  );
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return common / (a.size + b.size - common || 1);
}

/** "word 123" / "word: 1.2.3" / "word = 5": the number each word is given in the text. */
function numbersByWord(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of text.matchAll(/\b([A-Za-z][A-Za-z-]{2,})\s*(?:[:=]|\bis\b|\bof\b|\bat\b|\bon\b)?\s*(\d+(?:\.\d+)*)\b/g)) {
    const w = m[1]!.toLowerCase();
    if (STOP.has(w)) continue;
    out.set(w, (out.get(w) ?? new Set()).add(m[2]!));
  }
  return out;
}

export function disagreements(a: string, b: string): Omit<Contradiction, 'a' | 'b'>[] {
  const found: Omit<Contradiction, 'a' | 'b'>[] = [];
  const na = numbersByWord(a);
  const nb = numbersByWord(b);
  for (const [w, xs] of na) {
    const ys = nb.get(w);
    if (!ys || [...xs].some((x) => ys.has(x))) continue;
    found.push({ sign: 'number', saysA: `${w} ${[...xs].join(', ')}`, saysB: `${w} ${[...ys].join(', ')}` });
  }
  const sa = sentences(a);
  const sb = sentences(b);
  for (const x of sa) {
    for (const y of sb) {
      if (NEGATION.test(x) === NEGATION.test(y)) continue;
      const wx = words(x);
      const wy = words(y);
      if (Math.min(wx.size, wy.size) >= 2 && jaccard(wx, wy) >= 0.5) found.push({ sign: 'negation', saysA: x, saysB: y });
    }
  }
  return found.slice(0, 3);
}

/** Among pairs on the same thing (lint's judged duplicates), those whose texts disagree. */
export async function contradictionCandidates(db: Db, subject: string, pairs: readonly JudgedPair[]): Promise<Contradiction[]> {
  const near = pairs;
  const slugs = [...new Set(near.flatMap((p) => [p.a, p.b]))];
  if (slugs.length === 0) return [];
  const rows = (
    await sql<{ slug: string; text: string }>`
      SELECT slug, concat_ws(E'\n', summary, body) AS text FROM ${sql.table(`${subject}.topics`)} WHERE slug = ANY(${slugs}::text[])`.execute(db)
  ).rows;
  const text = new Map(rows.map((r) => [r.slug, r.text]));
  const out: Contradiction[] = [];
  for (const p of near) {
    const [ta, tb] = [text.get(p.a), text.get(p.b)];
    if (ta === undefined || tb === undefined) continue;
    for (const d of disagreements(ta, tb)) out.push({ a: p.a, b: p.b, ...d });
  }
  return out;
}
