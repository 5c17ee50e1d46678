import { describe, expect, it } from 'vitest';
import { formatTimelineEntry, parseTimeline } from '../../services/gbrain/timeline.js';

describe('parseTimeline', () => {
  it('reads entries with source, summary and indented detail', () => {
    const md = [
      '## Timeline',
      '',
      '- **2024-03-01** | meeting — Discussed Europe. Agreed on a pilot.',
      '  Pilot in Lisbon.',
      '',
      '    Nested more.',
      '- **2024-01-15** | email —Intro from YC',
      '* **2023-11-02** | manual -- Double hyphen',
      '- **2023-10-01** | call – En dash',
      '- **2023-09-01** | Summary without a source - with a hyphen',
      '- **2023-08-01** No pipe — at all',
      'Not an entry: **2023-01-01**',
    ].join('\r\n');
    expect(parseTimeline(md)).toEqual([
      { date: '2024-03-01', source: 'meeting', summary: 'Discussed Europe. Agreed on a pilot.', detail: 'Pilot in Lisbon.\n\n  Nested more.', line: 3 },
      { date: '2024-01-15', source: 'email', summary: 'Intro from YC', detail: '', line: 7 },
      { date: '2023-11-02', source: 'manual', summary: 'Double hyphen', detail: '', line: 8 },
      { date: '2023-10-01', source: 'call', summary: 'En dash', detail: '', line: 9 },
      { date: '2023-09-01', source: '', summary: 'Summary without a source - with a hyphen', detail: '', line: 10 },
      { date: '2023-08-01', source: 'No pipe', summary: 'at all', detail: '', line: 11 },
    ]);
  });

  it('splits at the first em dash; later dashes stay in the summary', () => {
    expect(parseTimeline('- **2024-01-01** | a -- b — c — d')[0]).toMatchObject({ source: 'a -- b', summary: 'c — d' });
  });

  it('ignores entry-looking lines inside fenced code and keeps fences in detail', () => {
    const md = '```\n- **2024-01-01** | x — in code\n```\n- **2024-01-02** | y — z\n  ```\n  code\n  ```\n';
    const entries = parseTimeline(md);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.detail).toBe('```\ncode\n```');
  });

  it('keeps a --- line in the timeline out of the entries', () => {
    expect(parseTimeline('- **2024-01-01** | a — b\n\n---\n\n- **2023-01-01** | c — d').map((e) => e.date)).toEqual(['2024-01-01', '2023-01-01']);
  });
});

describe('formatTimelineEntry', () => {
  it('writes the canonical line and reads back the same entry', () => {
    const entry = { date: '2024-03-01', source: 'meeting', summary: 'Met [Zoë](../people/zoë-müller.md) — 東京', detail: 'Line one.\n\n  Indented.' };
    const text = formatTimelineEntry(entry);
    expect(text).toBe('- **2024-03-01** | meeting — Met [Zoë](../people/zoë-müller.md) — 東京\n  Line one.\n\n    Indented.');
    expect(parseTimeline(text)).toEqual([{ ...entry, line: 1 }]);
  });

  it('keeps the dash for an empty source, so dashes in the summary read back', () => {
    const text = formatTimelineEntry({ date: '2024-01-01', summary: 'a — b' });
    expect(text).toBe('- **2024-01-01** | — a — b');
    expect(parseTimeline(text)[0]).toMatchObject({ source: '', summary: 'a — b' });
  });

  it('refuses bad dates, empty summaries and em dashes in the source', () => {
    expect(() => formatTimelineEntry({ date: '2024-1-1', summary: 'x' })).toThrow(/"2024-1-1" is not YYYY-MM-DD/);
    expect(() => formatTimelineEntry({ date: '2024-01-01', summary: ' ' })).toThrow(/summary is empty/);
    expect(() => formatTimelineEntry({ date: '2024-01-01', source: 'a—b', summary: 'x' })).toThrow(/em dash/);
  });
});
