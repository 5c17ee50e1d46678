// Line-level helpers shared by the GBrain parsers. Only "\n" and "\r\n" end a line: a lone
// "\r" is ordinary content (that is what git and most editors do), so it is never lost.

export type LineEndingStyle = 'lf' | 'crlf' | 'mixed' | 'none';

export interface Line {
  /** The line without its ending. */
  readonly text: string;
  /** "\n", "\r\n", or "" for a last line without an ending. */
  readonly eol: string;
  /** Offset of the first character of the line in the source string. */
  readonly start: number;
}

/** Splits into lines keeping each ending; joining text+eol of every line gives the input back. */
export function splitLines(s: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < s.length) {
    const nl = s.indexOf('\n', start);
    if (nl === -1) {
      lines.push({ text: s.slice(start), eol: '', start });
      break;
    }
    const crlf = nl > start && s[nl - 1] === '\r';
    lines.push({ text: s.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n', start });
    start = nl + 1;
  }
  return lines;
}

export function detectLineEnding(s: string): LineEndingStyle {
  const { lf, crlf } = countLineEndings(s);
  if (lf === 0 && crlf === 0) return 'none';
  if (lf === 0) return 'crlf';
  if (crlf === 0) return 'lf';
  return 'mixed';
}

/** The ending to use for new text: the majority ending, LF on a tie or when there is none. */
export function dominantEol(s: string): '\n' | '\r\n' {
  const { lf, crlf } = countLineEndings(s);
  return crlf > lf ? '\r\n' : '\n';
}

function countLineEndings(s: string): { lf: number; crlf: number } {
  let lf = 0;
  let crlf = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) {
    if (i > 0 && s[i - 1] === '\r') crlf++;
    else lf++;
  }
  return { lf, crlf };
}

/**
 * LF endings. CRs just before a line ending go too ("\r\r\n" → "\n"): were only one CR
 * dropped, the result would still hold a CRLF and normalising would not be idempotent.
 * The raw page keeps every byte; this is only for the parsed values.
 */
export function toLf(s: string): string {
  return s.replace(/\r+\n/g, '\n');
}

/** Text normalised to LF, converted to the given ending. */
export function withEol(s: string, eol: '\n' | '\r\n'): string {
  const lf = toLf(s);
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

export function isBlank(lineText: string): boolean {
  return /^[ \t]*$/.test(lineText);
}

/**
 * Tracks fenced code blocks (``` or ~~~, three or more) line by line. Openers are accepted at
 * any indentation, not only up to three spaces as CommonMark says: fences inside nested list
 * items are common in timelines, and mistaking one for a fence only ever hides a separator
 * or a link, never invents one.
 */
export class FenceTracker {
  private open: { char: string; length: number } | null = null;

  /** Feeds one line; true when the line is code (inside a fence, or a fence line itself). */
  step(lineText: string): boolean {
    const m = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(lineText);
    if (this.open) {
      if (m && m[1]![0] === this.open.char && m[1]!.length >= this.open.length && isBlank(m[2]!)) this.open = null;
      return true;
    }
    // A backtick fence's info string may not contain a backtick (CommonMark), else it is inline code.
    if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) {
      this.open = { char: m[1]![0]!, length: m[1]!.length };
      return true;
    }
    return false;
  }
}

/** Replaces inline code spans with spaces of the same length, so offsets stay valid. */
export function maskInlineCode(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      out += line[i];
      i++;
      continue;
    }
    let n = 0;
    while (line[i + n] === '`') n++;
    const close = findBacktickRun(line, i + n, n);
    if (close === -1) {
      out += line.slice(i, i + n); // unmatched run: literal backticks
      i += n;
    } else {
      out += ' '.repeat(close + n - i);
      i = close + n;
    }
  }
  return out;
}

function findBacktickRun(line: string, from: number, n: number): number {
  let i = from;
  while (i < line.length) {
    if (line[i] !== '`') {
      i++;
      continue;
    }
    let m = 0;
    while (line[i + m] === '`') m++;
    if (m === n) return i;
    i += m;
  }
  return -1;
}
