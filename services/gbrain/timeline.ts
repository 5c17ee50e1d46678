// Timeline entries below the line: `- **YYYY-MM-DD** | Source — Summary`, with indented
// continuation lines as detail. The markdown itself stays the source of truth (it is kept
// verbatim on the page); these entries are the structured view of it.
//
// Dash variants, decided: the source ends at the first em dash "—" (the canonical form, as
// in GBrain's own regex, spaces optional); failing that at the first spaced en dash " – "
// or spaced double hyphen " -- ". A single spaced hyphen " - " is NOT accepted: summaries
// use it too often ("Call - follow up") for it to mark the source. Without any dash the
// whole text after the pipe is the summary and the source is "". The pipe itself is
// optional, and "*" bullets are accepted as well as "-".
import { FenceTracker, isBlank, toLf } from './text.js';

export interface TimelineEntry {
  /** YYYY-MM-DD */
  date: string;
  source: string;
  summary: string;
  /** The indented continuation lines, de-indented, LF endings; "" when none. */
  detail: string;
  /** 1-based line of the entry in the timeline markdown it was parsed from (0 for new entries). */
  line: number;
}

const ENTRY = /^[-*][ \t]+\*\*(\d{4}-\d{2}-\d{2})\*\*[ \t]*(?:\|[ \t]*)?(.*)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseTimeline(markdown: string): TimelineEntry[] {
  const lines = toLf(markdown).split('\n');
  const entries: TimelineEntry[] = [];
  const fences = new FenceTracker();
  let current: { entry: TimelineEntry; detail: string[] } | null = null;
  const finish = (): void => {
    if (!current) return;
    current.entry.detail = deindent(current.detail);
    entries.push(current.entry);
    current = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indented = /^[ \t]/.test(line);
    // Detail: indented lines (fenced code in them included) and blank lines between them.
    if (current && (indented || isBlank(line))) {
      fences.step(line);
      current.detail.push(line);
      continue;
    }
    if (fences.step(line)) {
      finish();
      continue;
    }
    finish();
    const m = ENTRY.exec(line);
    if (!m) continue;
    const { source, summary } = splitSourceAndSummary(m[2]!);
    current = { entry: { date: m[1]!, source, summary, detail: '', line: i + 1 }, detail: [] };
  }
  finish();
  return entries;
}

/** The canonical markdown for one entry (LF endings, no trailing newline). */
export function formatTimelineEntry(entry: Pick<TimelineEntry, 'date' | 'summary'> & Partial<Pick<TimelineEntry, 'source' | 'detail'>>): string {
  if (!DATE.test(entry.date)) throw new Error(`timeline entry: the date "${entry.date}" is not YYYY-MM-DD`);
  const summary = oneLine(entry.summary);
  if (summary === '') throw new Error(`timeline entry ${entry.date}: the summary is empty`);
  const source = oneLine(entry.source ?? '');
  // An em dash in the source would move the split point on re-reading; there is no escape for it.
  if (source.includes('—')) throw new Error(`timeline entry ${entry.date}: the source "${source}" contains an em dash, which separates source from summary`);
  // With an empty source the dash stays, so a summary containing a dash reads back unchanged.
  let text = `- **${entry.date}** | ${source === '' ? '' : `${source} `}— ${summary}`;
  const detail = toLf(entry.detail ?? '').replace(/^\n+|\s+$/g, '');
  if (detail !== '') text += '\n' + detail.split('\n').map((l) => (l.trim() === '' ? '' : `  ${l}`)).join('\n');
  return text;
}

function splitSourceAndSummary(rest: string): { source: string; summary: string } {
  const em = rest.indexOf('—');
  if (em !== -1) return { source: rest.slice(0, em).trim(), summary: rest.slice(em + 1).trim() };
  const spaced = / (?:–|--) /.exec(rest);
  if (spaced) return { source: rest.slice(0, spaced.index).trim(), summary: rest.slice(spaced.index + spaced[0].length).trim() };
  return { source: '', summary: rest.trim() };
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Removes the indentation common to all non-blank lines, and the blank lines at both ends. */
function deindent(lines: string[]): string {
  while (lines.length > 0 && isBlank(lines[lines.length - 1]!)) lines.pop();
  while (lines.length > 0 && isBlank(lines[0]!)) lines.shift();
  const indents = lines.filter((l) => !isBlank(l)).map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => (isBlank(l) ? '' : l.slice(cut))).join('\n');
}
