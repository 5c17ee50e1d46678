// Near-duplicate titles for lint and import: every pair of cards whose pg_trgm title
// similarity reaches a threshold, found without comparing every pair in SQL.
import { sql } from 'kysely';
import { sqlState } from '../../db/sql.js';
import type { LintRun } from './lint-batches.js';

/** A pair of cards alike by title or embedding: `a` is the one with the lower id, as the old all-pairs join had it. */
export interface SimilarPair {
  a: string;
  b: string;
  similarity: number;
  /** The unrounded cosine, for pairs found by embedding. */
  cosine?: number;
}

/** Best first; ties by slug, so the same data always gives the same report. */
export function byPairOrder(x: SimilarPair, y: SimilarPair): number {
  return y.similarity - x.similarity || (x.a < y.a ? -1 : x.a > y.a ? 1 : 0) || (x.b < y.b ? -1 : x.b > y.b ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------
// Near-duplicate titles without comparing every pair in SQL.
//
// The definition is unchanged: two cards are near-duplicates when
// brain_ext.similarity(lower(a.title), lower(b.title)) >= threshold (pg_trgm: shared trigrams
// over all trigrams of the two, 0 for an empty set). The old query evaluated it for all
// n(n-1)/2 pairs in one statement (74 s for 3,000 cards on PGlite). Here:
//  1. each card's trigram set is read once, as pg_trgm itself computes it (show_trgm), in
//     pages of cards by id, each page its own short statement;
//  2. pairs that reach the threshold are found in memory by a prefix-filtered set similarity
//     join (trigramCandidates): trigrams ordered rarest first, a pair with Jaccard >= t must
//     share one of the first |x| - ceil(t |x|) + 1 trigrams of each card, so only cards sharing
//     such a rare trigram are compared, exactly, by counting shared trigrams;
//  3. those pairs are checked again by the database with the old expression, in batches: the
//     pairs and the similarities reported are the database's own, as before.
// ---------------------------------------------------------------------------------------------

/**
 * The candidates are counted exactly but compared in double precision where pg_trgm divides in
 * float4: taken this far below the threshold, none the database would accept is left out.
 */
const TITLE_MARGIN = 1e-6;
const TRIGRAM_PAGE = 1_000;

interface TrigramCard {
  id: number;
  /** Trigram ids, ascending. */
  grams: Int32Array;
}

/**
 * Whether a failure of the trigram query means pg_trgm is not there: its function is unknown
 * (42883 undefined_function), brain_ext is missing (3F000 invalid_schema_name), or the extension is
 * registered but its library is not on this server (58P01 undefined_file). Nothing else qualifies.
 */
export function trigramsUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42883' || state === '3F000' || state === '58P01';
}

/** All pairs with title similarity >= threshold, best first; null where pg_trgm is missing. */
export async function similarTitles(run: LintRun, threshold: number): Promise<SimilarPair[] | null> {
  const table = sql.table(`${run.ctx.subject.name}.topics`);
  const cards: TrigramCard[] = [];
  const gramIds = new Map<string, number>();
  try {
    for (let after = 0; ; ) {
      const rows = await run.step(
        'title-trigrams',
        async (trx) =>
          (await sql<{ id: number; grams: string[] }>`SELECT id, brain_ext.show_trgm(lower(title)) AS grams FROM ${table} WHERE id > ${after} AND archived_at IS NULL ORDER BY id LIMIT ${TRIGRAM_PAGE}`.execute(trx))
            .rows,
        TRIGRAM_PAGE,
      );
      for (const r of rows) {
        const ids = r.grams.map((g) => {
          let id = gramIds.get(g);
          if (id === undefined) gramIds.set(g, (id = gramIds.size));
          return id;
        });
        cards.push({ id: Number(r.id), grams: Int32Array.from(new Set(ids)).sort() });
      }
      if (rows.length < TRIGRAM_PAGE) break;
      after = Number(rows.at(-1)!.id);
    }
  } catch (error) {
    if (trigramsUnavailable(error)) return null;
    // Anything else (a timeout, a cancelled lint, a lost connection) is not "pg_trgm is missing".
    throw error;
  }

  // Handed over: trigramCandidates empties this list once it has ranked the trigrams, so at
  // 100,000 cards two copies of every card's trigrams are not held through the join.
  const nGrams = gramIds.size;
  gramIds.clear();
  const candidates = await trigramCandidates(run, cards, nGrams, threshold - TITLE_MARGIN);
  const pairs: SimilarPair[] = [];
  const table2 = table;
  await run.batches(
    'title-pairs',
    candidates,
    async (trx, batch) => {
      const rows = await sql<SimilarPair>`
        SELECT a.slug AS a, b.slug AS b, round(brain_ext.similarity(lower(a.title), lower(b.title))::numeric, 2)::float AS similarity
          FROM unnest(${batch.map((c) => c[0])}::bigint[], ${batch.map((c) => c[1])}::bigint[]) AS p(a_id, b_id)
          JOIN ${table2} a ON a.id = p.a_id JOIN ${table2} b ON b.id = p.b_id
         WHERE brain_ext.similarity(lower(a.title), lower(b.title)) >= ${threshold}`.execute(trx);
      pairs.push(...rows.rows);
    },
    { initial: 500, max: 5_000 },
  );
  return pairs.sort(byPairOrder);
}

/**
 * Pairs [lower id, higher id] whose trigram Jaccard similarity is at least t, counted exactly in
 * memory: PPJoin (Xiao et al., "Efficient similarity joins for near duplicate detection").
 * Each card's trigrams are ranked rarest first; cards are taken from the fewest trigrams to the
 * most, each probing an index of the earlier cards' prefixes with its own prefix; a pair is
 * dropped as soon as the overlap it could still reach (the shared trigrams so far, plus what is
 * left after the current position in either card) falls short of the overlap t requires, and
 * the rest are counted, until they too fall short. The event loop gets a turn every ~20 ms.
 */
async function trigramCandidates(run: LintRun, cards: TrigramCard[], nGrams: number, t: number): Promise<[number, number][]> {
  if (!(t > 0 && t <= 1)) throw new RangeError(`title similarity threshold out of range: ${t}`);
  const df = new Int32Array(nGrams);
  for (const c of cards) for (const g of c.grams) df[g]!++;
  const rank = new Int32Array(nGrams);
  Array.from({ length: nGrams }, (_, g) => g)
    .sort((x, y) => df[x]! - df[y]! || x - y)
    .forEach((g, r) => (rank[g] = r));
  // An empty trigram set is similar to nothing (pg_trgm answers 0).
  const recs = cards
    .filter((c) => c.grams.length > 0)
    .map((c) => ({ id: c.id, toks: Int32Array.from(c.grams, (g) => rank[g]!).sort() }))
    .sort((x, y) => x.toks.length - y.toks.length || x.id - y.id);
  cards.length = 0; // the caller's list, emptied: its trigrams live on, ranked, in recs
  const size = Int32Array.from(recs, (r) => r.toks.length);
  const postRec: (number[] | undefined)[] = new Array(nGrams);
  const postPos: number[][] = new Array(nGrams);
  const postStart = new Int32Array(nGrams);
  const overlap = new Int32Array(recs.length);
  const PRUNED = -1;
  const touched: number[] = [];
  const out: [number, number][] = [];
  const ratio = t / (1 + t); // Jaccard >= t  <=>  overlap >= t / (1 + t) * (|x| + |y|)
  let lastPause = performance.now();
  for (let xi = 0; xi < recs.length; xi++) {
    if ((xi & 63) === 0 && performance.now() - lastPause > 20) {
      await run.pause();
      lastPause = performance.now();
    }
    const x = recs[xi]!;
    const lx = x.toks.length;
    const prefix = lx - Math.ceil(t * lx) + 1;
    const minLy = t * lx;
    for (let i = 0; i < prefix; i++) {
      const w = x.toks[i]!;
      const list = postRec[w];
      if (!list) continue;
      const pos = postPos[w]!;
      // Earlier cards are no larger; the ones too small for x can never match a later card either.
      let k = postStart[w]!;
      while (k < list.length && size[list[k]!]! < minLy) k++;
      postStart[w] = k;
      for (; k < list.length; k++) {
        const yi = list[k]!;
        const a = overlap[yi]!;
        if (a === PRUNED) continue;
        const ly = size[yi]!;
        const reachable = a + 1 + Math.min(lx - i - 1, ly - pos[k]! - 1);
        if (a === 0) touched.push(yi);
        overlap[yi] = reachable >= Math.ceil(ratio * (lx + ly)) ? a + 1 : PRUNED;
      }
    }
    for (const yi of touched) {
      if (overlap[yi]! > 0) {
        const y = recs[yi]!;
        const shared = intersectionSize(x.toks, y.toks, Math.ceil(ratio * (lx + size[yi]!)));
        if (shared / (lx + size[yi]! - shared) >= t) out.push(y.id < x.id ? [y.id, x.id] : [x.id, y.id]);
      }
      overlap[yi] = 0;
    }
    touched.length = 0;
    for (let i = 0; i < prefix; i++) {
      const w = x.toks[i]!;
      const list = postRec[w];
      if (list) {
        list.push(xi);
        postPos[w]!.push(i);
      } else {
        postRec[w] = [xi];
        postPos[w] = [i];
      }
    }
  }
  return out;
}

/** Shared elements of two ascending arrays; stops early (with a smaller count) once `need` is out of reach. */
function intersectionSize(a: Int32Array, b: Int32Array, need: number): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (n + Math.min(a.length - i, b.length - j) < need) break;
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}
