// Search before add: every write of a topic through remember() first looks for the card it
// may duplicate, weighs each candidate (judgement.ts), then decides (docs/retrieval.md):
//   - the same thing, of the same kind, in the target subject: that card is updated;
//   - possibly the same thing: a new card, linked to the match and flagged in the answer, so
//     the model can merge them (archive with `into`) once the person agrees;
//   - related cards: a new card with a `mentions` link to each (at most MAX_LINKS), with the
//     sentence that names it as the link's context;
//   - nothing: a new island card.
// Creating a new card despite a same-thing match needs forceNew and a reason. The decision
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
import type { PlanLimits } from './selectivity.js';
import { judgementModelFor } from './calibration.js';
import { judgePair, pairEvidence, type PairEvidence, type Verdict } from './judgement.js';
import { lexemesOf, topicLexemes } from './similarity.js';
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
 * Rows the candidate searches may select in a table: search's budget until 2026-12-03, when
 * search's fell to 2,000 (selectivity.ts, MATCH_ROW_BUDGET). Search before add was judged with
 * this one (bench/judgement/), so it stays until that bench says otherwise.
 */
export const CANDIDATE_ROW_BUDGET = 3_000;
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
export const CANDIDATE_PLAN_LIMITS: PlanLimits = Object.freeze({ rankAll: 100, budget: CANDIDATE_ROW_BUDGET, rerankFactor: 2, maxTerms: 16 });
/** At most this many `mentions` links from a new card, the most likely first. */
export const MAX_LINKS = 3;

export interface Candidate {
  subject: string;
  slug: string;
  title: string;
  kind: string;
  /** P(same thing), 3 decimals: the candidate's score. */
  score: number;
  /** P(worth a link). */
  link: number;
  verdict: Verdict;
  /** Gets a `mentions` link if the card is written new (judgement.ts). */
  linkable: boolean;
  evidence: PairEvidence;
  /** The sentence of the new text that names the candidate (the link's context), if any. */
  sentence?: string;
}

export type RememberAction = 'updated' | 'created-flagged' | 'created-linked' | 'created-island' | 'created-forced';

export interface RememberResult {
  action: RememberAction;
  card: Topic;
  /** For 'updated': whether anything changed (text, summary, title, kind, tags). */
  changed: boolean;
  /** Tags stored under another spelling than the one given (tags.ts normalises them). */
  renamedTags: TagRename[];
  linkedTo: { subject: string; slug: string }[];
  /** Cards that may be this same thing (linked, not merged): a person decides. */
  possibleDuplicates: { subject: string; slug: string; title: string; score: number }[];
  candidates: Candidate[];
  warnings: string[];
}

/**
 * The decision search before add takes for a new card, from its weighed candidates. A slug
 * given by the caller asks for that card: only it can be updated, and any other match is
 * flagged instead.
 */
export function decide(candidates: readonly Candidate[], target: string, slug?: string): { update?: Candidate; flagged: Candidate[]; links: Candidate[] } {
  const update = candidates.find((c) => c.verdict === 'same' && c.subject === target && (slug === undefined || c.slug === slug));
  const flagged = candidates.filter((c) => c !== update && (c.verdict === 'possible-duplicate' || c.verdict === 'same'));
  const links = candidates
    .filter((c) => c !== update && c.linkable && !(c.subject === target && c.slug === slug))
    .sort((a, b) => b.link - a.link)
    .slice(0, MAX_LINKS);
  return { ...(update ? { update } : {}), flagged, links };
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

  const chosen = decide(candidates, target, input.slug);
  const confident = chosen.update;
  if (confident && input.forceNew && !input.reason?.trim()) {
    throw new BrainError(
      'reason_required',
      `"${target}:${confident.slug}" already looks like this card (score ${confident.score}); creating another needs a reason`,
      'Update that card instead (leave out forceNew), or pass forceNew with a reason saying why this is a different thing.',
      { details: { match: { subject: confident.subject, slug: confident.slug, score: confident.score } } },
    );
  }
  const update = confident && !input.forceNew ? confident : undefined;
  // A forced new card also links to the card it was forced past (once, if it is a link already).
  const links = update ? [] : [...new Set([...chosen.links, ...(confident ? [confident] : [])])];
  const flagged = update ? [] : chosen.flagged;
  const action: RememberAction = update ? 'updated' : confident ? 'created-forced' : flagged.length > 0 ? 'created-flagged' : links.length > 0 ? 'created-linked' : 'created-island';
  const possibleDuplicates = flagged.map((c) => ({ subject: c.subject, slug: c.slug, title: c.title, score: c.score }));

  const decision = {
    decision: action,
    candidates: candidates.map((c) => ({ subject: c.subject, slug: c.slug, score: c.score, link: c.link, verdict: c.verdict })),
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
      if (update) return { action, ...(await updateCard(update.slug)), linkedTo: [], possibleDuplicates: [], candidates, warnings, renamedTags };

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
          return { action: 'updated' as const, ...(await updateCard(slugNow)), linkedTo: [], possibleDuplicates: [], candidates, warnings, renamedTags };
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
      for (const c of links) await insertLink(trx, target, row.id, { toSubject: c.subject, to: c.slug, relation: 'mentions', context: linkContext(c) });
      return { action, card: toTopic(target, row), changed: true, linkedTo: links.map((c) => ({ subject: c.subject, slug: c.slug })), possibleDuplicates, candidates, warnings, renamedTags };
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
  const model = judgementModelFor(deps.embedder?.model);
  const incoming = { kind, titleLexemes: titleLex!, allLexemes: textLex! };
  const candidates: Candidate[] = [];
  for (const [key, ref] of refs) {
    const card = cards.get(key);
    if (!card) continue;
    const evidence = pairEvidence(incoming, card, vectorSim.get(key), ref.subject === target && card.slug === wantedSlug, model);
    const j = judgePair(evidence, model);
    const sentence = namingSentence(text, card.title);
    candidates.push({
      subject: ref.subject,
      slug: card.slug,
      title: card.title,
      kind: card.kind,
      score: Number(j.pSame.toFixed(3)),
      link: Number(j.pLink.toFixed(3)),
      verdict: j.verdict,
      linkable: j.linkable,
      evidence,
      ...(sentence ? { sentence } : {}),
    });
  }
  // Best first; on a tie the target subject's card first (it is the one that can be updated).
  candidates.sort((a, b) => b.score - a.score || Number(b.subject === target) - Number(a.subject === target) || a.slug.localeCompare(b.slug));
  return { candidates, warnings: [...new Set(warnings)] };
}

/** The first sentence of `text` naming `title` (all its longer words), for a link's context. */
export function namingSentence(text: string, title: string): string | undefined {
  const words = title
    .toLowerCase()
    .split(/[^\p{L}\p{N}+]+/u)
    .filter((w) => w.length >= 3 && !['the', 'and', 'for', 'with', 'our', 'my'].includes(w));
  if (words.length === 0) return undefined;
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const lower = sentence.toLowerCase();
    if (words.every((w) => lower.includes(w))) return sentence.trim().slice(0, 300);
  }
  return undefined;
}

export function linkContext(c: Candidate): string {
  const why = c.verdict === 'possible-duplicate' || c.verdict === 'same' ? `possibly the same thing (p ${c.score})` : `related (p ${c.link})`;
  return c.sentence ? `${why}: "${c.sentence}"` : `search before add: ${why}`;
}
