// Duplicate clusters for the health page. Lint proposes pairs (titles alike by trigrams, first
// chunks alike by embedding: services/curation/lint.ts); each pair is then weighed by the
// judgement search before add uses (services/search/judgement.ts) on the same evidence
// (lexemes of the titles and whole cards, the cosine where lint measured one), and the pairs
// it calls the same or possibly the same are joined into clusters. Nothing is merged.
import { sql } from 'kysely';
import type { LintReport } from '../curation/lint.js';
import type { Db } from '../knowledge/index.js';
import { judgementModelFor } from '../search/calibration.js';
import { judgePair, pairEvidence, type Verdict } from '../search/judgement.js';
import { topicLexemes, type CardLexemes } from '../search/similarity.js';

export interface JudgedPair {
  a: string;
  b: string;
  by: 'title' | 'embedding';
  /** Lint's measure: title trigram similarity, or the first chunks' cosine. */
  similarity: number;
  verdict: Verdict;
  pSame: number;
}

export interface Cluster {
  slugs: string[];
  pairs: JudgedPair[];
}

/** Lexemes of the cards lint named, keyed by slug. */
export async function lexemesBySlug(db: Db, subject: string, slugs: readonly string[]): Promise<Map<string, CardLexemes>> {
  if (slugs.length === 0) return new Map();
  const ids = (await sql<{ id: number }>`SELECT id FROM ${sql.table(`${subject}.topics`)} WHERE slug = ANY(${[...slugs]}::text[])`.execute(db)).rows;
  const byKey = await topicLexemes(db, ids.map((r) => ({ subject, entity: 'topic' as const, id: Number(r.id) })));
  return new Map([...byKey.values()].map((c) => [c.slug, c]));
}

export async function judgeLintPairs(db: Db, subject: string, report: LintReport, embedderModel: string | undefined): Promise<JudgedPair[]> {
  const pairs = report.duplicateTopics;
  const cards = await lexemesBySlug(db, subject, [...new Set(pairs.flatMap((p) => [p.a, p.b]))]);
  const model = judgementModelFor(embedderModel);
  const judged: JudgedPair[] = [];
  for (const p of pairs) {
    const a = cards.get(p.a);
    const b = cards.get(p.b);
    if (!a || !b) continue; // archived or gone since lint ran
    const evidence = pairEvidence(a, b, p.by === 'embedding' ? p.similarity : undefined, false, model);
    const j = judgePair(evidence, model);
    judged.push({ a: p.a, b: p.b, by: p.by, similarity: p.similarity, verdict: j.verdict, pSame: Number(j.pSame.toFixed(3)) });
  }
  return judged;
}

/** Connected groups of the pairs judged the same or possibly the same, largest first. */
export function clusters(pairs: readonly JudgedPair[]): Cluster[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const dup = pairs.filter((p) => p.verdict === 'same' || p.verdict === 'possible-duplicate');
  for (const p of dup) {
    for (const s of [p.a, p.b]) if (!parent.has(s)) parent.set(s, s);
    const [ra, rb] = [find(p.a), find(p.b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  const groups = new Map<string, Cluster>();
  for (const p of dup) {
    const root = find(p.a);
    const g = groups.get(root) ?? { slugs: [], pairs: [] };
    for (const s of [p.a, p.b]) if (!g.slugs.includes(s)) g.slugs.push(s);
    g.pairs.push(p);
    groups.set(root, g);
  }
  return [...groups.values()].map((g) => ({ ...g, slugs: g.slugs.sort() })).sort((x, y) => y.slugs.length - x.slugs.length || (x.slugs[0]! < y.slugs[0]! ? -1 : 1));
}
