// log.md: the brain's ingest log, kept verbatim as a file and also read into ingest records.
// The format is not fixed, so the reader is tolerant. An entry starts at a line carrying a
// date (optionally with a time) in one of these shapes:
//   - **2024-01-15** | meeting — Weekly sync with [Pedro](people/pedro-franceschi.md)
//   - 2024-01-15: article — https://example.com/post
//   ## [2024-01-15] ingest | Article title          (Karpathy's LLM-wiki log style)
//   ## 2024-01-15 14:30 meeting — Board call
// A heading that is only a date (`## 2024-01-15`) dates the bullets under it, one record
// each. Other lines under an entry are its detail. Lines before any entry are ignored.
// "type | text" or "type — text" at the start gives the source type (a short word);
// otherwise the type is "log". Links are read as pages updated (relative to the brain
// root, where log.md lives); the first URL or backticked path is the source reference.
import { extractLinks } from './links.js';
import { FenceTracker, toLf } from './text.js';

export interface IngestRecord {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM or HH:MM:SS, or "". */
  time: string;
  sourceType: string;
  sourceRef: string;
  pagesUpdated: string[];
  summary: string;
  detail: string;
  /** 1-based line in log.md. */
  line: number;
}

const DATED = /^(#{1,6}[ \t]+|[-*+][ \t]+)?\[?\*{0,2}(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:Z|[+-]\d{2}:?\d{2})?)?\*{0,2}\]?(.*)$/;
const BULLET = /^[-*+][ \t]+(.*)$/;
const TYPED = /^([A-Za-z][\w./-]{0,39})[ \t]*(?:\||—|–| -- |:)[ \t]*(.*)$/;

export function parseLog(markdown: string): IngestRecord[] {
  const lines = toLf(markdown).split('\n');
  const records: IngestRecord[] = [];
  // Declared with `as` so TypeScript does not narrow it to null: the closures below assign it.
  let current = null as { record: IngestRecord; detail: string[] } | null;
  let dateHeading: { date: string; time: string } | null = null;
  const fences = new FenceTracker();

  const finish = (): void => {
    if (!current) return;
    const detail = current.detail.join('\n').replace(/^\s*\n|\s+$/g, '');
    const r = current.record;
    r.detail = detail;
    const all = `${r.summary}\n${detail}`;
    r.pagesUpdated = [...new Set(extractLinks(all, 'log').map((l) => l.toSlug))];
    r.sourceRef = /https?:\/\/[^\s)>\]]+/.exec(all)?.[0] ?? /`([^`\n]+)`/.exec(all)?.[1] ?? '';
    records.push(r);
    current = null;
  };
  const start = (date: string, time: string, text: string, line: number): void => {
    finish();
    const rest = text.replace(/^[ \t]*(?:[|:—–]|--?)?[ \t]*/, '').trim();
    const typed = TYPED.exec(rest);
    current = {
      record: { date, time, sourceType: typed ? typed[1]!.toLowerCase() : 'log', sourceRef: '', pagesUpdated: [], summary: typed ? typed[2]!.trim() : rest, detail: '', line },
      detail: [],
    };
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fences.step(line)) {
      current?.detail.push(line);
      continue;
    }
    const dated = DATED.exec(line);
    if (dated) {
      const [, marker = '', date, time = '', text = ''] = dated;
      if (marker.startsWith('#') && text.trim() === '') {
        finish();
        dateHeading = { date: date!, time };
      } else {
        if (marker.startsWith('#')) dateHeading = null;
        start(date!, time, text, i + 1);
      }
      continue;
    }
    if (/^#{1,6}[ \t]/.test(line)) {
      // An undated heading closes the entry and any date heading above it.
      finish();
      dateHeading = null;
      continue;
    }
    const bullet = BULLET.exec(line);
    // Under a date-only heading every top-level bullet is its own record.
    if (bullet && dateHeading) {
      start(dateHeading.date, dateHeading.time, bullet[1]!, i + 1);
      continue;
    }
    if (current) current.detail.push(line);
  }
  finish();
  return records;
}
