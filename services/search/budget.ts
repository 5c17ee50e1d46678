// Token budgets. The estimate is characters / 4, rounded up: close to what BPE tokenisers
// give for English prose and markdown (about 4 characters per token), cheap, and the same
// everywhere. It over-counts code and under-counts non-Latin scripts; callers who need an
// exact count leave headroom.
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * The longest prefix of `text` within `tokens`, cut at a sentence end or else a word
 * boundary when one is reasonably close, with an ellipsis when cut. '' when nothing fits.
 */
export function truncateToTokens(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  const maxChars = tokens * CHARS_PER_TOKEN - 1; // room for the ellipsis
  if (maxChars < 8) return '';
  const cut = text.slice(0, maxChars);
  const sentence = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.\n'));
  if (sentence >= maxChars * 0.6) return `${cut.slice(0, sentence + 1)}…`;
  const space = cut.search(/\s\S*$/);
  return `${(space >= maxChars * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
