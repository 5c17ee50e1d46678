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
import { KEYWORD_WEIGHT, reciprocalRankFusion, RRF_K } from './fusion.js';
import { hasSearchableText, keywordSearch, type KeywordHit, type KeywordResult } from './keyword.js';
import { countPending } from './pending.js';
import { cardDisplays, passageSnippet } from './snippets.js';
import type { PlanLimits } from './selectivity.js';
import { parseTextQuery, type TextQuery } from './text-query.js';
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
  limit: z.number().int().min(1).max(100).default(10),
  budgetTokens: z.number().int().min(1).max(200_000).optional(),
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
  /** Hybrid: the RRF score. Keyword: ts_rank_cd. Semantic: cosine similarity (1 - distance). */
  score: number;
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
}

const DEFAULT_QUERY_EMBED_TIMEOUT_MS = 3_000;

export async function search(ctx: BrainContext, raw: SearchInput, deps: SearchDeps = {}): Promise<SearchResult> {
  const ranked = await rankedSearch(ctx, raw, deps);
  const { input } = ranked;
  const top = ranked.fused.slice(0, input.limit);
  const displays = await cardDisplays(ctx.db, top.map((h) => h.ref), ranked.textQuery);
  let hits: SearchHit[] = [];
  for (const h of top) {
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
      matchedBy: h.matchedBy,
      ...(d.occurredAt ? { occurredAt: d.occurredAt } : {}),
    });
  }
  let omittedForBudget: number | undefined;
  if (input.budgetTokens !== undefined) {
    const fitted = fitHitsToBudget(hits, input.budgetTokens);
    omittedForBudget = hits.length - fitted.length;
    hits = fitted;
  }
  return {
    hits,
    mode: ranked.mode,
    warnings: ranked.warnings,
    pendingEmbeddings: ranked.pendingEmbeddings,
    ...(omittedForBudget !== undefined ? { omittedForBudget } : {}),
  };
}

/** What one hit costs in a model's context: its fields as they would be shown. */
export function hitTokens(h: Pick<SearchHit, 'subject' | 'slug' | 'id' | 'kind' | 'title' | 'snippet'>): number {
  return estimateTokens(`${h.title} (${h.kind}, ${h.subject}:${h.slug ?? `episode/${h.id}`})\n${h.snippet}\n`);
}

/** Best hits first while they fit; the first hit is kept with a shortened snippet rather than returning nothing. */
export function fitHitsToBudget(hits: readonly SearchHit[], budget: number): SearchHit[] {
  const out: SearchHit[] = [];
  let used = 0;
  for (const h of hits) {
    const cost = hitTokens(h);
    if (used + cost <= budget) {
      out.push(h);
      used += cost;
      continue;
    }
    if (out.length === 0) {
      const overhead = hitTokens({ ...h, snippet: '' });
      const snippet = truncateToTokens(h.snippet, budget - overhead - 1);
      if (overhead <= budget && hitTokens({ ...h, snippet }) <= budget) out.push({ ...h, snippet });
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

/** How many candidates each list contributes to fusion: deeper than the page, so agreement lower down still counts. */
function depth(limit: number): number {
  return Math.min(200, Math.max(50, limit * 5));
}

export async function rankedSearch(ctx: BrainContext, raw: SearchInput, deps: SearchDeps = {}, filterOverrides: Partial<SearchFilters> = {}): Promise<RankedSearch> {
  const input = parseInput(searchInput, raw, 'search');
  const subjects = scope(ctx, input.subject);
  const filters = { ...filtersOf(input), ...filterOverrides };
  const textQuery = parseTextQuery(input.query);
  const warnings: string[] = [];
  const n = depth(input.limit);

  const wantVectors = input.mode !== 'keyword';
  const keywordSide = () => keywordSearch(ctx.db, subjects, textQuery, filters, n, deps.keywordPlanLimits);
  const [keyword, semantic] = await Promise.all([
    input.mode === 'semantic' ? Promise.resolve(undefined) : keywordSide(),
    wantVectors ? semanticSide(ctx, subjects, input.query, filters, n, deps, warnings) : Promise.resolve(undefined),
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

  let fused: RankedSearch['fused'];
  if (mode === 'keyword') {
    fused = keywordList.map((h) => ({ ref: h, score: h.rank, matchedBy: 'keyword' as const }));
  } else if (mode === 'semantic') {
    fused = vector.map((h) => ({ ref: h, score: 1 - h.distance, matchedBy: 'vector' as const, passage: h.passage }));
  } else {
    const passages = new Map(vector.map((h) => [cardKey(h), h.passage]));
    fused = reciprocalRankFusion<CardRef>([{ hits: keywordList, weight: KEYWORD_WEIGHT }, { hits: vector }], RRF_K).map((f) => ({
      ref: f.ref,
      score: f.score,
      matchedBy: f.ranks[0] !== undefined && f.ranks[1] !== undefined ? 'both' : f.ranks[0] !== undefined ? 'keyword' : 'vector',
      ...(passages.has(cardKey(f.ref)) ? { passage: passages.get(cardKey(f.ref))! } : {}),
    }));
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
  };
}

/** The vector list, or undefined (with a warning saying why) when semantic search cannot run. */
async function semanticSide(
  ctx: BrainContext,
  subjects: readonly string[],
  query: string,
  filters: SearchFilters,
  n: number,
  deps: SearchDeps,
  warnings: string[],
): Promise<{ hits: VectorHit[]; pending: number | null } | undefined> {
  const withVectors = await subjectsWithVectors(ctx.db, subjects);
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
    embedding = await withTimeout(embedder.embedQuery(query), deps.queryEmbedTimeoutMs ?? DEFAULT_QUERY_EMBED_TIMEOUT_MS, embedder.model);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // The embedders' own messages may already say what happens next.
    warnings.push(`semantic search unavailable: ${why}${/keyword-only/.test(why) ? '' : '; keyword results only'}`);
    return undefined;
  }
  const model = { model: embedder.model, dims: embedder.dimensions };
  const [hits, pending] = await Promise.all([
    vectorSearch(ctx.db, withVectors, { embedding, ...model, chunkLimit: Math.min(400, n * 2) }, filters, n),
    deps.embedderStatus
      ? Promise.resolve(deps.embedderStatus.pending)
      : withVectors.includes(ctx.subject.name)
        ? countPending(ctx.db, ctx.subject.name, model)
        : Promise.resolve(null),
  ]);
  if (pending !== null && pending > 0 && deps.embedderStatus?.state !== 'degraded') {
    warnings.push(`${pending} card(s) of this subject are not embedded yet with ${embedder.model}; they can only be found by keyword until they are`);
  }
  return { hits, pending };
}

function withTimeout<T>(p: Promise<T>, ms: number, model: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the embedder (${model}) did not embed the query within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
