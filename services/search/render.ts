// The answer a search gives a model, as text: one entry per hit (where it lives, what kind, how
// relevant, the passage), then the notes. search() fits budgetTokens against this exact text,
// header and notes included, so a budget is what the model really pays.
import type { SearchResult } from './search.js';

type Rendered = Pick<SearchResult, 'hits' | 'mode' | 'warnings' | 'pendingEmbeddings' | 'omittedForBudget' | 'belowFloor' | 'weakMatches'>;

function hitLine(h: SearchResult['hits'][number]): string {
  const ref = h.slug ? `${h.subject}:${h.slug}` : `${h.subject} episode #${h.id}${h.occurredAt ? ` (${h.occurredAt.slice(0, 10)})` : ''}`;
  return `- ${ref} · ${h.kind} · ${h.title} · relevance ${h.relevance.toFixed(2)} [${h.matchedBy}]${h.snippet ? `\n  ${h.snippet.replace(/\s+/g, ' ')}` : ''}`;
}

export function renderSearchAnswer(r: Rendered): string {
  const lines = r.hits.map(hitLine);
  if (r.hits.length === 0) {
    if (r.belowFloor > 0) {
      const named = (r.weakMatches ?? []).map((w) => `${w.subject}:${w.slug ?? `episode #${w.id}`} "${w.title}" (${w.relevance.toFixed(2)})`).join(', ');
      lines.push(`Nothing relevant found. The brain may not know this. Weakest guesses, not shown: ${named}. Search again with other words, or with minRelevance: 0 to see them.`);
    } else {
      lines.push('No matches. The brain may not know this; try other words, or remember it once it is known.');
    }
  }
  if (r.omittedForBudget) lines.push(`(${r.omittedForBudget} more left out to fit the budget)`);
  for (const w of r.warnings) lines.push(`Note: ${w}`);
  if (r.mode !== 'keyword' && r.pendingEmbeddings) lines.push(`Note: ${r.pendingEmbeddings} card(s) are not embedded yet; matches by meaning may be missing until the worker catches up.`);
  return `${r.mode} search:\n${lines.join('\n')}`;
}
