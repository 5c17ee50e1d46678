// Wiki links between pages: `[Name](../people/name.md)`, relative to the linking page's
// directory. Only links to .md files become page links; web links, images, bare anchors,
// and anything inside fenced code or inline code are ignored. Reference-style links and
// indented (4-space) code blocks are not recognised: GBrain writes inline links, and nested
// list items are indented 4 spaces far more often than code is.
import { posix } from 'node:path';
import { FenceTracker, maskInlineCode, toLf } from './text.js';

export interface WikiLink {
  /** The linked page's slug, e.g. "people/pedro-franceschi" (which may not exist). */
  toSlug: string;
  /** The link text. */
  text: string;
  /** The sentence containing the link (the line, when the line is one sentence). */
  context: string;
  /** The "#section" part of the target without "#", or "". */
  anchor: string;
  /** 1-based line of the link in the markdown. */
  line: number;
}

// [text](target) or [text](<target>), optionally with a "title". `!` before means an image.
const LINK = /(!?)\[([^\]\n]+)\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const MAX_CONTEXT = 500;

export function extractLinks(markdown: string, fromSlug: string): WikiLink[] {
  const links: WikiLink[] = [];
  const fences = new FenceTracker();
  const lines = toLf(markdown).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fences.step(line)) continue;
    const masked = maskInlineCode(line);
    for (const m of masked.matchAll(LINK)) {
      if (m[1] === '!') continue;
      const target = resolveLinkTarget(fromSlug, m[3]!);
      if (!target) continue;
      links.push({ toSlug: target.slug, text: m[2]!.trim(), context: sentenceAround(line, m.index, m.index + m[0].length), anchor: target.anchor, line: i + 1 });
    }
  }
  return links;
}

/**
 * The slug an href points at, seen from the page `fromSlug`, or null when it is not a page
 * link: a URL with a scheme, not a .md file, or a path climbing out of the brain. An href
 * starting with "/" is taken from the brain root. Percent-escapes are decoded.
 */
export function resolveLinkTarget(fromSlug: string, href: string): { slug: string; anchor: string } | null {
  let h = href.startsWith('<') && href.endsWith('>') ? href.slice(1, -1) : href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(h) || h.startsWith('//')) return null;
  const hash = h.indexOf('#');
  let anchor = '';
  if (hash !== -1) {
    anchor = h.slice(hash + 1);
    h = h.slice(0, hash);
  }
  const query = h.indexOf('?');
  if (query !== -1) h = h.slice(0, query);
  try {
    h = decodeURIComponent(h);
    anchor = decodeURIComponent(anchor);
  } catch {
    // A stray "%" that is not an escape: take the text as written.
  }
  if (!/\.md$/i.test(h)) return null;
  const fromDir = posix.dirname(fromSlug.replace(/\\/g, '/'));
  const joined = h.startsWith('/') ? posix.normalize(h.slice(1)) : posix.normalize(posix.join(fromDir, h));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return { slug: joined.replace(/^\.\//, '').replace(/\.md$/i, ''), anchor };
}

/** The sentence of `line` that contains [start, end): bounded by ". ", "! ", "? " or the line. */
function sentenceAround(line: string, start: number, end: number): string {
  const ends = /[.!?](?=\s|$)/g;
  let from = 0;
  let to = line.length;
  for (const m of line.matchAll(ends)) {
    // The dots of "../x.md" are followed by "/", "m" or ")", never by a space: they are not ends.
    if (m.index < start) from = m.index + 1;
    else if (m.index >= end) {
      to = m.index + 1;
      break;
    }
  }
  let s = line.slice(from, to).trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '');
  if (s.length > MAX_CONTEXT) s = s.slice(0, MAX_CONTEXT - 1) + '…';
  return s;
}
