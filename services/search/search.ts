// search(): the one retrieval entry point. Keyword (full text) and semantic (vectors of the
// query embedder's model) lists over every subject this context may read, fused by
// reciprocal rank. Anything that stops the semantic side (no pgvector, no embedder, the
// embedder down or slow) degrades to keyword results with a warning, never an error.
//
// Isolation is Postgres's: the subjects searched are readableSubjects(ctx), and the
// connection's role could not read any other schema anyway. A `subject` filter can only
// narrow that list; naming a subject outside it is refused.
import { z } from 'zod';
import type { Embedder } from '../embeddings/embedder.js';
import { targetSubject, type BrainContext } from '../knowledge/context.js';
import { BrainError } from '../knowledge/errors.js';
import { dateBound, parseInput, subjectRef, tag } from '../knowledge/schemas.js';
import { readableSubjects } from '../knowledge/topics.js';
import { estimateTokens, truncateToTokens } from './budget.js';
import { renderSearchAnswer } from './render.js';
import { reciprocalRankFusion } from './fusion.js';
import { hasSearchableText, keywordSearch, type KeywordHit, type KeywordResult } from './keyword.js';
import { countPending } from './pending.js';
import { cardDisplays, passageSnippet } from './snippets.js';
import { rankingWith, type Ranking } from './ranking.js';
import { floorFor, gatherEvidence, NO_EVIDENCE, relevanceFrom, type Evidence } from './relevance.js';
import { relevanceModelFor } from './calibration.js';
import type { PlanLimits } from './selectivity.js';
import { parseTextQuery, wordsOf, type TextQuery } from './text-query.js';
import { cardKey, type CardRef, type Entity, type SearchFilters } from './types.js';
import { subjectsWithVectors, vectorSearch, type VectorHit } from './vectors.js';
import type { EmbedStatus } from './worker.js';

export type SearchMode = 'hybrid' | 'keyword' | 'semantic';

/** since/until: a real date (midnight UTC) or a timestamp with its offset; 2025-02-30 is refused, never moved into March. */
const when = dateBound;

export const searchInput = z.object({
  query: z.string().trim().min(1).max(2000),
  mode: z.enum(['hybrid', 'keyword', 'semantic']).default('hybrid'),
  kinds: z.array(z.string().trim().min(1).max(60)).max(50).default([]),
  tags: z.array(tag).max(50).default([]),
  since: when.optional(),
  until: when.optional(),
  subject: subjectRef,
  /** Left out: up to DEFAULT_LIMIT hits, fewer where relevance drops. */
  limit: z.number().int().min(1).max(100).optional(),
  budgetTokens: z.number().int().min(1).max(200_000).optional(),
  /** The relevance (0-1) a question's best hit must reach to be answered; default the model's calibrated floor, 0 shows everything. */
  minRelevance: z.number().min(0).max(1).optional(),
  includeEpisodes: z.boolean().default(true),
});
export type SearchInput = z.input<typeof searchInput>;

export interface SearchDeps {
  /** The query embedder; without one, search is keyword-only (with a warning when semantic was asked for). */
  embedder?: Embedder | undefined;
  /** The embed worker's status: its pending count is reported, and its failures become warnings. */
  embedderStatus?: EmbedStatus | undefined;
  /** How long to wait for the query embedding before giving up on the semantic side. */
  queryEmbedTimeoutMs?: number;
  /** How keyword search plans big tables (selectivity.ts); the benchmarks compare it with never planning. */
  keywordPlanLimits?: PlanLimits;
  /** Other ranking constants than ranking.ts's (the benchmarks' sweeps). */
  ranking?: Partial<Ranking>;
}

export type MatchedBy = 'keyword' | 'vector' | 'both';

export interface SearchHit {
  subject: string;
  type: Entity;
  /** Topic slug; null for an episode (use `id`). */
  slug: string | null;
  id: number;
  kind: string;
  title: string;
  snippet: string;
  /** What ranked it. Hybrid: the RRF score (with the boosts). Keyword: ts_rank_cd. Semantic: cosine similarity (1 - distance). */
  score: number;
  /** How likely the hit answers the question, 0-1, on one scale for every query (relevance.ts). */
  relevance: number;
  matchedBy: MatchedBy;
  /** Episodes: when it happened. */
  occurredAt?: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** The mode actually used: 'keyword' when the semantic side was unavailable. */
  mode: SearchMode;
  warnings: string[];
  /** Cards of this subject not yet embedded with the query model; null where there are no embeddings at all. */
  pendingEmbeddings: number | null;
  /** Hits left out to respect budgetTokens. */
  omittedForBudget?: number;
  /** Candidates left out as not relevant enough (below the floor); with no hits, the answer is "nothing relevant". */
  belowFloor: number;
  /** With no hits: the best of the candidates left out, named only (titles cost little), for a model that expected an answer. */
  weakMatches?: { subject: string; type: Entity; slug: string | null; id: number; title: string; relevance: number }[];
}

/** Internal: the ranked lists before display, for remember() and the benchmarks. */
export interface RankedSearch {
  input: z.output<typeof searchInput>;
  textQuery: TextQuery;
  subjects: string[];
  keyword: KeywordHit[];
  /** How the keyword side chose the rows it ranked (selectivity.ts); absent in semantic mode. */
  keywordPlan?: Pick<KeywordResult, 'narrowed' | 'widened'>;
  vector: VectorHit[];
  fused: { ref: CardRef; score: number; matchedBy: MatchedBy; passage?: string }[];
  mode: SearchMode;
  warnings: string[];
  pendingEmbeddings: number | null;
  /** The query's embedding, when the semantic side ran (relevance.ts compares cards with it). */
  queryVector?: { embedding: number[]; model: string; dims: number };
  /** Subjects with chunk tables. */
  vectorSubjects: string[];
}

const DEFAULT_QUERY_EMBED_TIMEOUT_MS = 3_000;

/** Hits shown when the caller names no limit: at most this many, fewer where relevance drops. */
export const DEFAULT_LIMIT = 10;
/**
 * With no limit given, a hit is shown only while its relevance is at least this share of the
 * best hit's: the answer stops where relevance drops (bench/search/questions.ts chose it).
 */
export const RELEVANCE_DROP = 0.3;
/** Titles named when a question is answered "nothing relevant". */
const WEAK_MATCHES = 3;
/** Candidates beyond the limit whose relevance is read, so hits left out below the floor can be replaced. */
const EVIDENCE_SLACK = 10;

export async function search(ctx: BrainContext, raw: SearchInput, deps: SearchDeps = {}): Promise<SearchResult> {
  const ranked = await rankedSearch(ctx, raw, deps);
  const { input } = ranked;
  const { kept, belowFloor, weak } = await judgeRelevance(ctx, ranked);
  const displays = await cardDisplays(ctx.db, [...kept, ...weak].map((h) => h.ref), ranked.textQuery);
  let hits: SearchHit[] = [];
  for (const h of kept) {
    const d = displays.get(cardKey(h.ref));
    if (!d) continue; // deleted between ranking and display
    // A card found only by meaning has no matched words to mark: its nearest chunk says more.
    const snippet = h.matchedBy === 'vector' && h.passage ? passageSnippet(h.passage) : d.snippet || d.title;
    hits.push({
      subject: h.ref.subject,
      type: h.ref.entity,
      slug: d.slug,
      id: h.ref.id,
      kind: d.kind,
      title: d.title,
      snippet,
      score: Number(h.score.toFixed(6)),
      relevance: Number(h.relevance.toFixed(3)),
      matchedBy: h.matchedBy,
      ...(d.occurredAt ? { occurredAt: d.occurredAt } : {}),
    });
  }
  const weakMatches = weak.flatMap((h) => {
    const d = displays.get(cardKey(h.ref));
    return d ? [{ subject: h.ref.subject, type: h.ref.entity, slug: d.slug, id: h.ref.id, title: d.title, relevance: Number(h.relevance.toFixed(3)) }] : [];
  });
  const result: SearchResult = {
    hits,
    mode: ranked.mode,
    warnings: ranked.warnings,
    pendingEmbeddings: ranked.pendingEmbeddings,
    belowFloor,
    ...(weakMatches.length > 0 ? { weakMatches } : {}),
  };
  if (input.budgetTokens === undefined) return result;
  const fitted = fitHitsToBudget(result, input.budgetTokens);
  return { ...result, hits: fitted, omittedForBudget: hits.length - fitted.length };
}

export interface JudgedHit {
  ref: CardRef;
  score: number;
  matchedBy: MatchedBy;
  passage?: string;
  relevance: number;
  evidence: Evidence;
}

/**
 * The hits to show: the best-ranked candidates whose relevance (relevance.ts) clears the
 * model's floor, up to the limit; with no limit given, only while relevance stays within
 * RELEVANCE_DROP of the best. Also counts the candidates left out below the floor.
 */
export async function judgeRelevance(ctx: BrainContext, ranked: RankedSearch): Promise<{ kept: JudgedHit[]; belowFloor: number; weak: JudgedHit[] }> {
  const limit = ranked.input.limit ?? DEFAULT_LIMIT;
  const candidates = ranked.fused.slice(0, limit + EVIDENCE_SLACK);
  const evidence = await gatherEvidence(ctx.db, candidates.map((c) => c.ref), { text: wordsOf(ranked.textQuery), vector: ranked.queryVector, subjectsWithVectors: ranked.vectorSubjects });
  const model = relevanceModelFor(ranked.queryVector?.model);
  const judged = candidates.map((c) => {
    const e = evidence.get(cardKey(c.ref)) ?? NO_EVIDENCE;
    return { ...c, evidence: e, relevance: relevanceFrom(e, model) };
  });
  // Semantic mode asks for the nearest cards by meaning, and the offline model's cosine cannot
  // vouch for an answer by itself (relevance.ts): only keyword and hybrid searches are gated, and
  // only with a model calibrated here (nomic-embed-text's scale is borrowed: its floor would be a
  // guess, so it shows its hits with their relevance, as before the floor).
  const asked = ranked.input.minRelevance !== undefined;
  const gated = ranked.input.minRelevance !== 0 && (asked || (ranked.mode !== 'semantic' && model.calibrated));
  if (!gated) {
    const best = Math.max(0, ...judged.map((h) => h.relevance));
    const drop = ranked.input.limit === undefined && ranked.input.minRelevance === undefined;
    const shown = drop ? judged.filter((h) => h.relevance >= best * RELEVANCE_DROP) : judged;
    return { kept: shown.slice(0, limit), belowFloor: 0, weak: [] };
  }
  // The question is answered only if its best hit clears the floor; then its other hits are
  // shown while they clear a lower bar (floor x companions), and, with no limit given, while
  // they stay within RELEVANCE_DROP of the best.
  const floor = (h: JudgedHit) => ranked.input.minRelevance ?? floorFor(h.evidence, model);
  const best = Math.max(0, ...judged.filter((h) => h.relevance >= floor(h)).map((h) => h.relevance));
  const above = best === 0 ? [] : judged.filter((h) => h.relevance >= floor(h) * model.companions);
  const kept = (ranked.input.limit === undefined ? above.filter((h) => h.relevance >= best * RELEVANCE_DROP) : above).slice(0, limit);
  const weak = kept.length > 0 ? [] : [...judged].sort((a, b) => b.relevance - a.relevance).slice(0, WEAK_MATCHES);
  return { kept, belowFloor: judged.length - above.length, weak };
}

/** Best hits first while the whole rendered answer fits; the first hit is kept with a shortened snippet rather than returning nothing. */
export function fitHitsToBudget(result: SearchResult, budget: number): SearchHit[] {
  const out: SearchHit[] = [];
  const cost = (hits: SearchHit[]) => estimateTokens(renderSearchAnswer({ ...result, hits, omittedForBudget: result.hits.length - hits.length }));
  for (const h of result.hits) {
    if (cost([...out, h]) <= budget) {
      out.push(h);
      continue;
    }
    if (out.length === 0) {
      const overhead = cost([{ ...h, snippet: '' }]);
      const snippet = truncateToTokens(h.snippet, budget - overhead - 1);
      if (overhead <= budget && snippet !== '' && cost([{ ...h, snippet }]) <= budget) out.push({ ...h, snippet });
    }
    break;
  }
  return out;
}

/** The subjects to search: readable ones, narrowed (never widened) by a subject filter. */
function scope(ctx: BrainContext, subject: string | undefined): string[] {
  const readable = readableSubjects(ctx);
  if (subject === undefined) return readable;
  const target = targetSubject(ctx, subject); // throws 'forbidden' for anything unreadable
  if (!readable.includes(target)) throw new BrainError('forbidden', `subject "${subject}" is not readable here`, 'Leave out the subject filter.');
  return [target];
}

function filtersOf(input: z.output<typeof searchInput>): SearchFilters {
  const day = (s: string | undefined) => (s === undefined ? undefined : new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s));
  return { kinds: input.kinds, tags: input.tags, since: day(input.since), until: day(input.until), includeEpisodes: input.includeEpisodes, includeTopics: true };
}

export async function rankedSearch(ctx: BrainContext, raw: SearchInput, deps: SearchDeps = {}, filterOverrides: Partial<SearchFilters> = {}): Promise<RankedSearch> {
  const input = parseInput(searchInput, raw, 'search');
  const subjects = scope(ctx, input.subject);
  const filters = { ...filtersOf(input), ...filterOverrides };
  const textQuery = parseTextQuery(input.query);
  const warnings: string[] = [];
  const ranking = rankingWith(deps.ranking);
  // Deeper than the page, and the same whatever the page: agreement lower down still counts.
  const n = Math.max(ranking.fusionDepth, input.limit ?? DEFAULT_LIMIT);

  const wantVectors = input.mode !== 'keyword';
  const keywordSide = () =>
    keywordSearch(ctx.db, subjects, textQuery, filters, n, { ...(deps.keywordPlanLimits ? { limits: deps.keywordPlanLimits } : {}), normalisation: ranking.rankNormalisation });
  const withVectors = wantVectors ? await subjectsWithVectors(ctx.db, subjects) : [];
  const queryEmbedding = withVectors.length > 0 ? (await startQueryEmbedding(input.query, deps))?.vector : undefined;
  const [keyword, semantic] = await Promise.all([
    input.mode === 'semantic' ? Promise.resolve(undefined) : keywordSide(),
    wantVectors ? semanticSide(ctx, withVectors, queryEmbedding, filters, n, deps, warnings, ranking.vectorChunksPerCard) : Promise.resolve(undefined),
  ]);
  let mode: SearchMode = input.mode;
  let vector: VectorHit[] = [];
  let pendingEmbeddings: number | null = null;
  if (semantic === undefined) {
    if (wantVectors) mode = 'keyword';
    pendingEmbeddings = deps.embedderStatus && deps.embedderStatus.state !== 'off' ? deps.embedderStatus.pending : null;
  } else {
    vector = semantic.hits;
    pendingEmbeddings = semantic.pending;
  }
  // Semantic asked for but unavailable: keyword results rather than nothing.
  const keywordResult = mode === 'keyword' && input.mode === 'semantic' ? await keywordSide() : keyword;
  const keywordList = keywordResult?.hits ?? [];
  if (deps.embedderStatus?.state === 'degraded' && wantVectors) {
    warnings.push(`embedding is behind (${deps.embedderStatus.lastError ?? 'embedder unavailable'}); ${deps.embedderStatus.pending} card(s) of this subject are not embedded yet and can only be found by keyword`);
  }

  if (keywordResult?.phrasesRelaxed) warnings.push(`no card holds the quoted phrase(s) ${textQuery.phrases} as written; their words were searched instead`);

  let fused: RankedSearch['fused'];
  if (mode === 'keyword') {
    fused = applyBoosts(keywordList.map((h) => ({ ref: h, score: h.rank, matchedBy: 'keyword' as const })), ctx, input.query, ranking);
  } else if (mode === 'semantic') {
    fused = applyBoosts(vector.map((h) => ({ ref: h, score: 1 - h.distance, matchedBy: 'vector' as const, passage: h.passage })), ctx, input.query, ranking);
  } else {
    const passages = new Map(vector.map((h) => [cardKey(h), h.passage]));
    const lists = [{ hits: keywordList as RankedRef[], weight: ranking.keywordWeight }, { hits: vector as RankedRef[] }];
    const merged = reciprocalRankFusion<RankedRef>(lists, ranking.rrfK).map((f) => ({
      ref: f.ref,
      score: f.score,
      matchedBy: (f.ranks[0] !== undefined && f.ranks[1] !== undefined ? 'both' : f.ranks[0] !== undefined ? 'keyword' : 'vector') as MatchedBy,
      ...(passages.has(cardKey(f.ref)) ? { passage: passages.get(cardKey(f.ref))! } : {}),
    }));
    fused = applyBoosts(merged, ctx, input.query, ranking);
  }
  if (!hasSearchableText(textQuery) && mode === 'keyword') warnings.push('the query has no searchable words');
  return {
    input,
    textQuery,
    subjects,
    keyword: keywordList,
    ...(keywordResult ? { keywordPlan: { narrowed: keywordResult.narrowed, widened: keywordResult.widened } } : {}),
    vector,
    fused,
    mode,
    warnings,
    pendingEmbeddings,
    ...(semantic?.queryVector ? { queryVector: semantic.queryVector } : {}),
    vectorSubjects: semantic?.vectorSubjects ?? [],
  };
}

/** A candidate with what the boosts read: its kind and, for an episode, when it happened. */
export type RankedRef = CardRef & { kind: string; occurredAt: Date | null };

/**
 * Ranking.recencyWeight and kindBoost applied to a ranked list, which is then sorted again:
 * newer episodes ahead of older ones that match as well, and the kind a question names
 * ("which decision...") ahead of others.
 */
export function applyBoosts<T extends { ref: RankedRef; score: number }>(list: T[], ctx: BrainContext, query: string, ranking: Ranking): T[] {
  const named = kindsNamed(query, ctx.kinds.map((k) => k.name));
  const newest = Math.max(...list.map((h) => h.ref.occurredAt?.getTime() ?? -Infinity));
  if (named.size === 0 && (!Number.isFinite(newest) || ranking.recencyWeight === 0)) return list;
  const day = 86_400_000;
  return list
    .map((h) => {
      let factor = named.has(h.ref.kind) ? 1 + ranking.kindBoost : 1;
      if (h.ref.occurredAt && Number.isFinite(newest)) factor *= 1 + ranking.recencyWeight * 2 ** (-(newest - h.ref.occurredAt.getTime()) / day / ranking.recencyHalfLifeDays);
      return { ...h, score: h.score * factor };
    })
    .sort((a, b) => b.score - a.score);
}

/**
 * The kinds a question names: a word (singular or plural) that is a kind's name or the first
 * part of it ("decision" names decision and decision-made, "chapters" names chapter-summary
 * and chapter-write).
 */
export function kindsNamed(query: string, kinds: readonly string[]): Set<string> {
  const words = new Set(
    query
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 2)
      .map((w) => (w.endsWith('s') && !w.endsWith('ss') && w.length > 3 ? w.slice(0, -1) : w)),
  );
  return new Set(kinds.filter((k) => words.has(k.split('-')[0]!)));
}

/**
 * The query's embedding, asked for before anything else of the search runs, and the request out
 * of this process when it returns. The embedder (Ollama) computes in a process of its own while
 * the keyword statements run; but every statement of the embedded brain holds this thread, so a
 * request not yet written when they start went out after them, and the embedding was waited for
 * on top of them. One turn of the loop (setImmediate) lets it go first, and the Ollama client
 * writes it before that turn ends (services/embeddings/http-exchange.ts): with an embedder taking
 * 20 ms, hybrid search at 7,500 pages went from 46.5 / 74.5 to 36-38 / 44-47 ms (p50 / p95;
 * docs/retrieval.md). Asked for only where some subject has vectors; its failure is
 * semanticSide's to report.
 */
async function startQueryEmbedding(query: string, deps: SearchDeps): Promise<{ vector: Promise<number[]> } | undefined> {
  const embedder = deps.embedder;
  if (!embedder) return undefined;
  const vector = withTimeout(embedder.embedQuery(query), deps.queryEmbedTimeoutMs ?? DEFAULT_QUERY_EMBED_TIMEOUT_MS, embedder.model);
  vector.catch(() => undefined); // observed by semanticSide, or deliberately dropped
  await new Promise<void>((resolve) => setImmediate(resolve));
  // In an object: an async function returning the promise itself would wait for it.
  return { vector };
}

/** The vector list, or undefined (with a warning saying why) when semantic search cannot run. */
async function semanticSide(
  ctx: BrainContext,
  withVectors: string[],
  queryEmbedding: Promise<number[]> | undefined,
  filters: SearchFilters,
  n: number,
  deps: SearchDeps,
  warnings: string[],
  chunksPerCard: number,
): Promise<{ hits: VectorHit[]; pending: number | null; queryVector: { embedding: number[]; model: string; dims: number }; vectorSubjects: string[] } | undefined> {
  if (withVectors.length === 0) {
    warnings.push('semantic search unavailable: pgvector is not installed on this database; keyword results only');
    return undefined;
  }
  const embedder = deps.embedder;
  if (!embedder) {
    warnings.push('semantic search unavailable: no embedder is configured; keyword results only');
    return undefined;
  }
  let embedding: number[];
  try {
    embedding = await queryEmbedding!; // started with the embedder, by startQueryEmbedding
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // The embedders' own messages may already say what happens next.
    warnings.push(`semantic search unavailable: ${why}${/keyword-only/.test(why) ? '' : '; keyword results only'}`);
    return undefined;
  }
  const model = { model: embedder.model, dims: embedder.dimensions };
  const [hits, pending] = await Promise.all([
    vectorSearch(ctx.db, withVectors, { embedding, ...model, chunkLimit: Math.min(400, Math.ceil(n * chunksPerCard)) }, filters, n),
    deps.embedderStatus
      ? Promise.resolve(deps.embedderStatus.pending)
      : withVectors.includes(ctx.subject.name)
        ? countPending(ctx.db, ctx.subject.name, model)
        : Promise.resolve(null),
  ]);
  if (pending !== null && pending > 0 && deps.embedderStatus?.state !== 'degraded') {
    warnings.push(`${pending} card(s) of this subject are not embedded yet with ${embedder.model}; they can only be found by keyword until they are`);
  }
  return { hits, pending, queryVector: { embedding, ...model }, vectorSubjects: withVectors };
}

function withTimeout<T>(p: Promise<T>, ms: number, model: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the embedder (${model}) did not embed the query within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
