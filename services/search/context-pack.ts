// "What matters about X in 800 tokens": the best hits, each as title, kind, subject:slug and
// its most relevant passage (the nearest chunk when found by meaning, else the fragments
// around the matched words), packed in rank order into a caller-given token budget
// (estimateTokens: characters / 4). The last item that does not fit whole is cut to fit,
// when enough room is left for it to say something; the rest are counted as omitted.
import type { BrainContext } from '../knowledge/context.js';
import { estimateTokens, truncateToTokens } from './budget.js';
import { rankedSearch, type SearchDeps, type SearchInput, type SearchMode } from './search.js';
import { cardDisplays, passageSnippet } from './snippets.js';
import { cardKey } from './types.js';

/** Below this many tokens a cut passage is not worth its header. */
export const MIN_PASSAGE_TOKENS = 24;
/** Hits considered for packing. */
const CANDIDATES = 20;

export interface PackedItem {
  subject: string;
  type: 'topic' | 'episode';
  slug: string | null;
  id: number;
  kind: string;
  title: string;
  passage: string;
  tokens: number;
  truncated: boolean;
}

export interface PackedContext {
  /** The items rendered as one block of markdown, ready to put in a prompt. */
  text: string;
  items: PackedItem[];
  usedTokens: number;
  budgetTokens: number;
  omitted: number;
  mode: SearchMode;
  warnings: string[];
}

export type PackInput = Omit<SearchInput, 'budgetTokens' | 'limit'> & { budgetTokens: number };

function render(i: Pick<PackedItem, 'title' | 'kind' | 'subject' | 'slug' | 'id' | 'passage'>): string {
  return `### ${i.title}\n(${i.kind} · ${i.subject}:${i.slug ?? `episode/${i.id}`})\n${i.passage}\n\n`;
}

export async function packContext(ctx: BrainContext, input: PackInput, deps: SearchDeps = {}): Promise<PackedContext> {
  const budget = input.budgetTokens;
  if (!Number.isInteger(budget) || budget < 1) throw new RangeError(`budgetTokens must be a positive integer, got ${budget}`);
  const { budgetTokens: _omit, ...searchPart } = input;
  const ranked = await rankedSearch(ctx, { ...searchPart, limit: CANDIDATES }, deps);
  const top = ranked.fused.slice(0, CANDIDATES);
  const displays = await cardDisplays(ctx.db, top.map((h) => h.ref), ranked.textQuery, 'passage');
  const items: PackedItem[] = [];
  let used = 0;
  let omitted = 0;
  for (const h of top) {
    const d = displays.get(cardKey(h.ref));
    if (!d) continue;
    const passage = h.passage ? passageSnippet(h.passage, 2000) : d.snippet || d.title;
    const base = { subject: h.ref.subject, type: h.ref.entity, slug: d.slug, id: h.ref.id, kind: d.kind, title: d.title };
    const whole = estimateTokens(render({ ...base, passage }));
    if (used + whole <= budget) {
      items.push({ ...base, passage, tokens: whole, truncated: false });
      used += whole;
      continue;
    }
    const room = budget - used - estimateTokens(render({ ...base, passage: '' })) - 1;
    if (room >= MIN_PASSAGE_TOKENS) {
      const cut = truncateToTokens(passage, room);
      const tokens = estimateTokens(render({ ...base, passage: cut }));
      if (cut !== '' && used + tokens <= budget) {
        items.push({ ...base, passage: cut, tokens, truncated: true });
        used += tokens;
        continue;
      }
    }
    omitted++;
  }
  const text = items.map(render).join('');
  return { text, items, usedTokens: estimateTokens(text), budgetTokens: budget, omitted, mode: ranked.mode, warnings: ranked.warnings };
}
