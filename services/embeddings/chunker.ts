// Splits a card into chunks small enough to embed well. One vector per whole card blurs a long
// card into its average; one per `##` section keeps each topic findable. Every chunk repeats the
// card title (and its section heading) because a section alone ("## Steps") embeds without context.
import { createHash } from 'node:crypto';

export interface CardText {
  title: string;
  summary?: string | null;
  /** Markdown. */
  body: string;
}

export interface Chunk {
  /** 0-based position within the card. */
  index: number;
  /** The `##` heading the chunk belongs to; null for the opening chunk(s). */
  heading: string | null;
  /** What gets embedded: context prefix + content. Never longer than maxChars, never blank. */
  text: string;
}

export interface ChunkOptions {
  /** Upper bound on each chunk's text, prefix included. */
  maxChars?: number;
  /** When a section must be split, each later piece repeats up to this many trailing chars of the previous one. */
  overlapChars?: number;
}

interface Section {
  heading: string | null;
  content: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const H2 = /^ {0,3}##(?:[ \t]+(.*?))?[ \t]*$/;

export function chunkCard(card: CardText, options: ChunkOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? 2000;
  const overlapChars = options.overlapChars ?? 0;
  if (!Number.isInteger(maxChars) || maxChars < 40) throw new RangeError(`maxChars must be an integer >= 40, got ${maxChars}`);
  if (!Number.isInteger(overlapChars) || overlapChars < 0) throw new RangeError(`overlapChars must be a non-negative integer, got ${overlapChars}`);

  const title = oneLine(card.title);
  const { preamble, sections } = splitSections(normalise(card.body));
  // Every chunk starts with the title, so the title said again adds nothing but tokens (the
  // model's cost grows with them): a summary that is the title (each episode imported from a
  // GBrain timeline line) and a body's leading `# Title` (each imported GBrain page) are left out.
  // Without this a GBrain page's first chunk was its title twice, a third of its chunks.
  const summary = normalise(card.summary ?? '').trim();
  const opening = [sameText(summary, title) ? '' : summary, withoutTitleHeading(preamble, title)].filter((s) => s !== '').join('\n\n');

  // A heading with nothing under it adds nothing the title chunk does not already say.
  const parts = sections.filter((s) => s.content !== '');
  // The opening chunk exists when there is something to say beyond the title, or nothing else at all.
  if (opening !== '' || parts.length === 0) parts.unshift({ heading: null, content: opening });

  const chunks: Chunk[] = [];
  for (const { heading, content } of parts) {
    const prefix = contextPrefix(title, heading, Math.floor(maxChars / 2));
    if (content === '') {
      // Only a card with nothing but a title gets here: its title is all there is to find.
      if (prefix !== '') chunks.push({ index: chunks.length, heading, text: prefix });
      continue;
    }
    const budget = maxChars - prefix.length - 2; // 2 for the blank line between prefix and content
    for (const piece of withOverlap(splitToFit(content, budget, overlapChars), overlapChars, budget)) {
      chunks.push({ index: chunks.length, heading, text: prefix === '' ? piece : `${prefix}\n\n${piece}` });
    }
  }
  return chunks;
}

/**
 * sha256 (hex) over the chunk texts, for noticing that a card's stored vectors are stale. It is
 * model-independent on purpose: a model change is detected by the model id stored beside each
 * vector, so the two questions ("text changed?", "model changed?") stay separate.
 */
export function contentHash(chunks: readonly Pick<Chunk, 'text'>[]): string {
  const hash = createHash('sha256').update('chunks-v1\0');
  // Length-prefixed so ["ab", "c"] and ["a", "bc"] differ.
  for (const c of chunks) hash.update(`${Buffer.byteLength(c.text)}:${c.text}\0`);
  return hash.digest('hex');
}

function normalise(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function sameText(a: string, b: string): boolean {
  return oneLine(a).toLowerCase() === b.toLowerCase();
}

/** The preamble without a first line `# <the title>`. */
function withoutTitleHeading(preamble: string, title: string): string {
  const m = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*(?:\n|$)/.exec(preamble);
  return m && title !== '' && sameText(m[1]!, title) ? preamble.slice(m[0].length).trim() : preamble;
}

/** Splits on `##` lines outside fenced code blocks. `###` and deeper stay inside their section. */
function splitSections(body: string): { preamble: string; sections: Section[] } {
  const sections: Section[] = [];
  let current: { heading: string | null; lines: string[] } = { heading: null, lines: [] };
  let preamble = '';
  let fence: string | null = null;
  const flush = () => {
    const content = current.lines.join('\n').trim();
    if (current.heading === null) preamble = content;
    else sections.push({ heading: current.heading, content });
  };
  for (const line of body.split('\n')) {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[1]!;
      // A fence closes only with the same character, at least as long, and nothing after it.
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    }
    const h = fence === null && !f ? H2.exec(line) : null;
    if (h) {
      flush();
      current = { heading: oneLine((h[1] ?? '').replace(/[ \t]+#+$/, '')), lines: [] };
    } else {
      current.lines.push(line);
    }
  }
  flush();
  return { preamble, sections };
}

function contextPrefix(title: string, heading: string | null, limit: number): string {
  const lines = [title === '' ? '' : `# ${title}`, heading ? `## ${heading}` : ''].filter((l) => l !== '');
  const prefix = lines.join('\n');
  // A runaway title must not eat the content's budget.
  return prefix.length <= limit ? prefix : `${prefix.slice(0, limit - 1).trimEnd()}…`;
}

/**
 * Cuts `text` into pieces of at most `budget - overlap` chars, preferring the coarsest boundary
 * that works: paragraphs, then sentences, then lines, then words, then a hard cut.
 */
function splitToFit(text: string, budget: number, overlapChars: number): string[] {
  const overlap = Math.min(overlapChars, Math.floor(budget / 2));
  const size = overlap > 0 ? budget - overlap - 1 : budget;
  return split(text.trim(), size, 0);
}

const LEVELS: { re: RegExp; join: string }[] = [
  { re: /\n[ \t]*\n\s*/, join: '\n\n' }, // paragraphs
  { re: /(?<=[.!?]["')\]]?)\s+(?=\S)/, join: ' ' }, // sentences
  { re: /\n/, join: '\n' }, // lines
  { re: /[ \t]+/, join: ' ' }, // words
];

function split(text: string, size: number, level: number): string[] {
  if (text.length <= size) return text === '' ? [] : [text];
  const lvl = LEVELS[level];
  if (!lvl) return hardSplit(text, size);
  const units = text.split(lvl.re).map((u) => u.trim()).filter((u) => u !== '');
  if (units.length <= 1) return split(text, size, level + 1);
  // Greedy packing: deterministic, and each piece is as full as the boundaries allow.
  const pieces: string[] = [];
  let current = '';
  for (const unit of units) {
    for (const part of unit.length > size ? split(unit, size, level + 1) : [unit]) {
      const joined = current === '' ? part : current + lvl.join + part;
      if (joined.length <= size) current = joined;
      else {
        if (current !== '') pieces.push(current);
        current = part;
      }
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

/** Fixed-size cuts, never between the two halves of a surrogate pair (an emoji must not become U+FFFD). */
function hardSplit(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff && end - 1 > start) end--;
    const piece = text.slice(start, end).trim();
    if (piece !== '') pieces.push(piece);
    start = end;
  }
  return pieces;
}

/** Prefixes each piece after the first with the tail of the one before, cut at a word boundary. */
function withOverlap(pieces: string[], overlapChars: number, budget: number): string[] {
  const overlap = Math.min(overlapChars, Math.floor(budget / 2));
  if (overlap === 0) return pieces;
  return pieces.map((piece, i) => {
    if (i === 0) return piece;
    const prev = pieces[i - 1]!;
    let tail = prev.slice(-overlap);
    const space = tail.search(/\s/);
    if (prev.length > overlap && space >= 0) tail = tail.slice(space);
    tail = tail.trim();
    return tail === '' ? piece : `${tail} ${piece}`;
  });
}
