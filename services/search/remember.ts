// Search before add: every write of a topic through remember() first looks for the card it
// may duplicate, then decides (documented in docs/retrieval.md):
//   - a confident match in the target subject: that card is updated (replace or append);
//   - only loose matches: a new card, with a `mentions` link to each;
//   - nothing meaningful: a new island card.
// Creating a new card despite a confident match needs forceNew and a reason. The decision
// and the candidates weighed are stored with the write in the outbox (the write intent's
// detail). Writing into personal, only personal is searched, so the stored decision names
// only personal cards: every project can read personal's outbox.
import { sql } from 'kysely';
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import { requireUpcastReason, targetSubject, write, type BrainContext } from '../knowledge/context.js';
import { BrainError, fromDatabaseError } from '../knowledge/errors.js';
import { assertKind } from '../knowledge/kinds.js';
import { insertLink } from '../knowledge/links.js';
import { kindName, parseInput, reason, slug, subjectRef, tag } from '../knowledge/schemas.js';
import { addTags, normaliseTags, type TagRename } from '../knowledge/tags.js';
import { findTopic, insertTopicIfAbsent, lockTopic, readableSubjects, toTopic, updateTopicIn, type Topic } from '../knowledge/topics.js';
import { rankedSearch, type SearchDeps } from './search.js';
import { MATCH_ROW_BUDGET, type PlanLimits } from './selectivity.js';
import { dice, lexemesOf, topicLexemes } from './similarity.js';
import { firstFreeSlug, slugFor } from './slugify.js';
import { cardKey, type CardRef } from './types.js';

export const rememberInput = z.object({
  slug: slug.optional(),
  kind: kindName,
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(1000).optional(),
  body: z.string().max(200_000).default(''),
  tags: z.array(tag).max(50).default([]),
  /** When an existing card is updated: replace its text, or append the body as a new paragraph. */
  mode: z.enum(['replace', 'append']).default('append'),
  /** 'personal' from a project is an upcast and needs a reason. */
  subject: subjectRef,
  /** Create a new card even when a confident match exists (needs a reason). */
  forceNew: z.boolean().default(false),
  reason,
});
export type RememberInput = z.input<typeof rememberInput>;

/**
 * Each signal maps onto one score scale: 0 = nothing in common, 0.5 = its "related"
 * threshold, 1 = its "confident" threshold (linear between, capped at 1). A candidate's
 * score is its best signal: >= 1 confident, >= 0.5 related, below that not meaningful.
 */
export const THRESHOLDS = {
  /** Dice overlap of title lexemes: "Postgres backups" vs "Backups of Postgres" = 1. */
  title: { related: 0.5, confident: 0.8 },
  /** Dice overlap of all lexemes of the new text and the card. */
  text: { related: 0.2, confident: 0.75 },
} as const;
/**
 * A card of another kind (a decision about the Postgres server vs the server itself) may be
 * very like the new one in words and meaning yet be a different thing: text and vector
 * signals alone cannot make it confident; its score is capped just below.
 */
export const OTHER_KIND_CAP = 0.99;

/**
 * Cosine similarity thresholds per embedding model (document vs query embedding). Vectors
 * alone only make a match confident at near-duplicate level. use-lite-512 was calibrated
 * on pairs like a card and its paraphrase (0.93) vs related cards (0.5-0.85) vs unrelated
 * (~0.1); the nomic values are the published typical ranges, not measured here.
 */
export const VECTOR_THRESHOLDS: Readonly<Record<string, { related: number; confident: number }>> = {
  'use-lite-512': { related: 0.5, confident: 0.9 },
  'nomic-embed-text': { related: 0.65, confident: 0.9 },
};
const DEFAULT_VECTOR_THRESHOLD = { related: 0.65, confident: 0.92 };

export const CONFIDENT = 1;
export const RELATED = 0.5;
/** Candidates taken from each search (text, title) before weighing. */
const CANDIDATES_PER_SEARCH = 8;
/**
 * The candidate searches do less than search does (selectivity.ts): they keep only the best
 * CANDIDATES_PER_SEARCH, and a whole card as the query shares a word with nearly every card of
 * a table. Planned as a question is, its dozens of words each selected cards (an index lookup
 * and a visit of every card holding the word) and up to 500 cards a table were ranked against
 * every word (ts_rank_cd, about 0.2 ms a card for a 50-word text in PGlite): a remember cost
 * 150-200 ms of the embedded brain's one thread. Here a table whose matches are estimated over
 * 100 is planned, its 16 rarest words select, and the best 100 of the selected cards are ranked
 * (still with every word).
 */
export const CANDIDATE_PLAN_LIMITS: PlanLimits = Object.freeze({ rankAll: 100, budget: MATCH_ROW_BUDGET, rerankFactor: 2, maxTerms: 16 });
/** At most this many `mentions` links from a new card. */
const MAX_LINKS = 5;

export type Verdict = 'confident' | 'related' | 'weak';

export interface Candidate {
  subject: string;
  slug: string;
  title: string;
  score: number;
  verdict: Verdict;
  signals: { slug: boolean; title: number; text: number; vector?: number };
}

export type RememberAction = 'updated' | 'created-linked' | 'created-island' | 'created-forced';

export interface RememberResult {
  action: RememberAction;
  card: Topic;
  /** For 'updated': whether anything changed (text, summary, title, kind, tags). */
  changed: boolean;
  /** Tags stored under another spelling than the one given (tags.ts normalises them). */
  renamedTags: TagRename[];
  linkedTo: { subject: string; slug: string }[];
  candidates: Candidate[];
  warnings: string[];
}

function scaled(value: number, t: { related: number; confident: number }): number {
  if (value >= t.confident) return 1;
  if (value >= t.related) return 0.5 + (0.5 * (value - t.related)) / (t.confident - t.related);
  return (0.5 * Math.max(0, value)) / t.related;
}

export function verdictOf(score: number): Verdict {
  return score >= CONFIDENT ? 'confident' : score >= RELATED ? 'related' : 'weak';
}

export async function remember(ctx: BrainContext, raw: RememberInput, deps: SearchDeps = {}): Promise<RememberResult> {
  const input = parseInput(rememberInput, raw, 'remember');
  const target = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, target, input.reason);
  assertKind(ctx, input.kind, 'topic');
  // Checked before anything is searched or written; insertTags stores them so (tags.ts).
  const { renamed: renamedTags } = normaliseTags(input.tags);
  const wantedSlug = input.slug ?? slugFor(input.kind, input.title);

  // Writing into personal, only personal is searched (see the header); otherwise everything readable.
  const scope = target === PERSONAL ? [PERSONAL] : readableSubjects(ctx);
  const { candidates, warnings } = await weighCandidates(ctx, scope, target, wantedSlug, input, deps);

  const confident = candidates.find((c) => c.verdict === 'confident' && c.subject === target);
  if (confident && input.forceNew && !input.reason?.trim()) {
    throw new BrainError(
      'reason_required',
      `"${target}:${confident.slug}" already looks like this card (score ${confident.score}); creating another needs a reason`,
      'Update that card instead (leave out forceNew), or pass forceNew with a reason saying why this is a different thing.',
      { details: { match: { subject: confident.subject, slug: confident.slug, score: confident.score } } },
    );
  }
  const update = confident && !input.forceNew ? confident : undefined;
  const links = update
    ? []
    : candidates
        .filter((c) => c.verdict !== 'weak' && !(c.subject === target && c.slug === wantedSlug && input.slug !== undefined))
        .slice(0, MAX_LINKS);
  const action: RememberAction = update ? 'updated' : confident ? 'created-forced' : links.length > 0 ? 'created-linked' : 'created-island';

  const decision = {
    decision: action,
    candidates: candidates.map((c) => ({ subject: c.subject, slug: c.slug, score: c.score, verdict: c.verdict })),
  };
  try {
    return await write(ctx, { operation: 'remember', reason: input.reason, detail: decision }, async (trx) => {
      // The card's row is locked before its text is read, so concurrent appends all land.
      const updateCard = async (cardSlug: string) => {
        const before = await lockTopic(trx, target, cardSlug);
        const row = await updateTopicIn(trx, target, {
          subject: target,
          slug: cardSlug,
          bodyMode: input.mode,
          body: input.body,
          ...(input.mode === 'replace' ? { title: input.title, kind: input.kind } : {}),
          // A summary given is the card's summary now, in either mode: a summary is one line,
          // there is nothing to append it to (and a new summary with the same body is a change).
          ...(input.summary !== undefined ? { summary: input.summary } : {}),
          reason: input.reason,
        }, before);
        const tagged = await addTags(trx, target, row.id, input.tags);
        return { card: toTopic(target, row), changed: before?.updated_at.valueOf() !== row.updated_at.valueOf() || tagged.added > 0 };
      };
      if (update) return { action, ...(await updateCard(update.slug)), linkedTo: [], candidates, warnings, renamedTags };

      const card = { kind: input.kind, title: input.title, summary: input.summary ?? '', body: input.body, timeline: '', frontmatter: {}, tags: input.tags, reason: input.reason };
      let row;
      if (!input.forceNew) {
        // The slug was free when the candidates were weighed. If a concurrent writer has
        // created it since, this write would have been an update of that card had it come
        // second: it becomes one (the insert waits for the other and then does nothing).
        const slugNow = input.slug ?? wantedSlug;
        row = await insertTopicIfAbsent(trx, target, { ...card, slug: slugNow });
        if (!row) {
          await sql`SELECT set_config('brain.detail', ${JSON.stringify({ ...decision, decision: 'updated', createdMeanwhile: slugNow })}, true)`.execute(trx);
          return { action: 'updated' as const, ...(await updateCard(slugNow)), linkedTo: [], candidates, warnings, renamedTags };
        }
      } else if (input.slug !== undefined) {
        row = await insertTopicIfAbsent(trx, target, { ...card, slug: input.slug });
        if (!row) throw new BrainError('already_exists', `topic "${input.slug}" already exists in ${target}`, 'Leave out the slug to get a fresh one, or leave out forceNew to update that card.');
      } else {
        // A forced new card takes the first free slug; a concurrent writer may take it first.
        for (let attempt = 0; !row; attempt++) {
          if (attempt === 20) throw new BrainError('conflict', `no free slug near "${wantedSlug}" after ${attempt} attempts`, 'Pass an explicit slug.');
          const free = await firstFreeSlug(wantedSlug, async (s) => (await findTopic(trx, target, s)) !== undefined);
          row = await insertTopicIfAbsent(trx, target, { ...card, slug: free });
        }
      }
      for (const c of links) {
        await insertLink(trx, target, row.id, { toSubject: c.subject, to: c.slug, relation: 'mentions', context: `search before add: ${c.verdict} match, score ${c.score}` });
      }
      return { action, card: toTopic(target, row), changed: true, linkedTo: links.map((c) => ({ subject: c.subject, slug: c.slug })), candidates, warnings, renamedTags };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `remember "${wantedSlug}"`);
  }
}

/** Finds and scores the cards the new one may duplicate or relate to, best first. */
export async function weighCandidates(
  ctx: BrainContext,
  scope: readonly string[],
  target: string,
  wantedSlug: string,
  input: Pick<z.output<typeof rememberInput>, 'kind' | 'title' | 'summary' | 'body'>,
  deps: SearchDeps,
): Promise<{ candidates: Candidate[]; warnings: string[] }> {
  const kind = input.kind;
  const text = [input.title, input.summary ?? '', input.body].filter((s) => s.trim() !== '').join('\n\n');
  const topicsOnly = { includeEpisodes: false };
  const warnings: string[] = [];
  const refs = new Map<string, CardRef>();
  const vectorSim = new Map<string, number>();
  // The new text, hybrid (capped: a whole long body as a query adds cost, not signal).
  const byText = await rankedSearch(ctx, { query: text.slice(0, 1500), limit: CANDIDATES_PER_SEARCH }, { ...deps, keywordPlanLimits: CANDIDATE_PLAN_LIMITS }, topicsOnly);
  warnings.push(...byText.warnings);
  for (const f of byText.fused.slice(0, CANDIDATES_PER_SEARCH)) if (scope.includes(f.ref.subject)) refs.set(cardKey(f.ref), f.ref);
  for (const v of byText.vector) vectorSim.set(cardKey(v), 1 - v.distance);
  // The title alone, by keyword: a same-titled card must be weighed even if a long body drowns it.
  const byTitle = await rankedSearch(ctx, { query: input.title, mode: 'keyword', limit: CANDIDATES_PER_SEARCH }, { keywordPlanLimits: CANDIDATE_PLAN_LIMITS }, topicsOnly);
  for (const f of byTitle.fused.slice(0, CANDIDATES_PER_SEARCH)) if (scope.includes(f.ref.subject)) refs.set(cardKey(f.ref), f.ref);
  // The slug itself.
  const sameSlug = await findTopic(ctx.db, target, wantedSlug);
  if (sameSlug) refs.set(cardKey({ subject: target, entity: 'topic', id: sameSlug.id }), { subject: target, entity: 'topic', id: sameSlug.id });

  const [titleLex, textLex] = await lexemesOf(ctx.db, [input.title, text]);
  const cards = await topicLexemes(ctx.db, [...refs.values()]);
  const vt = (deps.embedder && VECTOR_THRESHOLDS[deps.embedder.model.split(':')[0]!]) || DEFAULT_VECTOR_THRESHOLD;
  const candidates: Candidate[] = [];
  for (const [key, ref] of refs) {
    const card = cards.get(key);
    if (!card) continue;
    const slugEqual = ref.subject === target && card.slug === wantedSlug;
    const title = dice(titleLex!, card.titleLexemes);
    const textSim = dice(textLex!, card.allLexemes);
    const vector = vectorSim.get(key);
    const content = Math.max(scaled(textSim, THRESHOLDS.text), vector === undefined ? 0 : scaled(vector, vt));
    const score = Math.max(slugEqual ? 1 : 0, scaled(title, THRESHOLDS.title), card.kind === kind ? content : Math.min(OTHER_KIND_CAP, content));
    const rounded = Number(score.toFixed(3));
    candidates.push({
      subject: ref.subject,
      slug: card.slug,
      title: card.title,
      score: rounded,
      verdict: verdictOf(rounded),
      signals: { slug: slugEqual, title: Number(title.toFixed(3)), text: Number(textSim.toFixed(3)), ...(vector === undefined ? {} : { vector: Number(vector.toFixed(3)) }) },
    });
  }
  // Best first; on a tie the target subject's card first (it is the one that can be updated).
  candidates.sort((a, b) => b.score - a.score || Number(b.subject === target) - Number(a.subject === target) || a.slug.localeCompare(b.slug));
  return { candidates, warnings: [...new Set(warnings)] };
}
