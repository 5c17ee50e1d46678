// Duplicate clusters for the health page. Lint reports the pairs search before add's judgement
// calls the same thing or possibly the same (services/curation/lint-judgement.ts: pairs alike by
// title or by embedding, weighed on titles, lexemes, cosine and kind); here they are joined into
// clusters. Nothing is merged.
import type { JudgedDuplicate } from '../curation/lint-judgement.js';
import type { LintReport } from '../curation/lint.js';

export type JudgedPair = JudgedDuplicate;

export interface Cluster {
  slugs: string[];
  pairs: JudgedPair[];
}

/** The pairs lint judged (every one is the same thing or possibly the same). */
export function judgedPairs(report: LintReport): JudgedPair[] {
  return report.duplicateTopics;
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
