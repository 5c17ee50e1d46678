// Timeline lines ↔ episodes. A GBrain timeline line `- **2024-03-01** | meeting — Summary`
// becomes an episode dated 2024-03-01 (date_only), source label "meeting", that summary,
// its indented lines as detail, and a kind read from the source (see episodeKindFor).
// Going back, an episode is written as one such line.
import { createHash } from 'node:crypto';
import { formatTimelineEntry, parseTimeline, type TimelineEntry } from './timeline.js';

/** What export needs of an episode linked to a page. */
export interface EpisodeLike {
  id: number;
  kind: string;
  /** YYYY-MM-DD (the UTC date of occurred_at). */
  date: string;
  title: string;
  summary: string;
  detail: string;
  sourceLabel: string;
}

/**
 * The episode kind for a timeline line's source: "meeting" when the source names a
 * meeting or a call (meeting, board meeting, call, 1:1, sync), "ingest" when it says
 * import or ingest, otherwise "note" (a dated observation). Source labels are free text,
 * so the rest (email, article, linkedin, crustdata...) are notes with that label kept.
 */
export function episodeKindFor(source: string): 'meeting' | 'ingest' | 'note' {
  const s = source.toLowerCase();
  if (/\b(meeting|call|1:1|one-on-one|sync|standup|board)\b/.test(s)) return 'meeting';
  if (/\b(import|ingest)\b/.test(s)) return 'ingest';
  return 'note';
}

/** The title of an episode made from a line: its summary, or the source and date when the summary is empty. */
export function episodeTitle(entry: Pick<TimelineEntry, 'date' | 'source' | 'summary'>): string {
  const s = entry.summary.trim();
  if (s !== '') return s.length > 300 ? `${s.slice(0, 299)}…` : s;
  return `${entry.source.trim() || 'timeline'} ${entry.date}`;
}

/** Identifies an entry for matching an episode against the lines of a timeline. */
export function entryKey(date: string, summary: string): string {
  return `${date}\u0000${summary.trim()}`;
}

/**
 * Full identity of a line (date, source, summary, detail) as a short hash, kept with the
 * import to decide on re-import whether a line's episode is still the same.
 */
export function entryIdentity(entry: Pick<TimelineEntry, 'date' | 'source' | 'summary' | 'detail'>): string {
  return createHash('sha256').update(JSON.stringify([entry.date, entry.source, entry.summary, entry.detail])).digest('hex').slice(0, 24);
}

/** A real calendar date, years 0001 to 9999: Postgres refuses 2024-02-30 and 0000-01-01, so such a line gets no episode. */
export function isCalendarDate(date: string): boolean {
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === date && d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999;
}

/** One timeline line for an episode. An em dash in the source label becomes a hyphen (it would split the line). */
export function episodeLine(e: EpisodeLike): string {
  return formatTimelineEntry({
    date: e.date,
    source: e.sourceLabel.replace(/—/g, '-'),
    summary: e.summary.trim() !== '' ? e.summary : e.title,
    detail: e.detail,
  });
}

/**
 * The timeline markdown with a line for every episode it does not already have (matched
 * by date and summary), newest first, inserted above the first existing line (GBrain
 * timelines run newest first) or appended when it has none. Unchanged when nothing is missing.
 */
export function mergeTimeline(markdown: string, episodes: readonly EpisodeLike[]): string {
  if (episodes.length === 0) return markdown;
  const entries = parseTimeline(markdown);
  const have = new Map<string, number>();
  for (const e of entries) have.set(entryKey(e.date, e.summary), (have.get(entryKey(e.date, e.summary)) ?? 0) + 1);
  const missing: EpisodeLike[] = [];
  for (const e of episodes) {
    const key = entryKey(e.date, e.summary);
    const n = have.get(key) ?? 0;
    if (n > 0) have.set(key, n - 1);
    else missing.push(e);
  }
  if (missing.length === 0) return markdown;
  missing.sort((a, b) => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1));
  const lines = missing.map(episodeLine).join('\n');
  if (entries.length === 0) return markdown.trim() === '' ? lines : `${markdown.trimEnd()}\n\n${lines}`;
  const all = markdown.split('\n');
  const at = entries[0]!.line - 1;
  return [...all.slice(0, at), lines, ...all.slice(at)].join('\n');
}
