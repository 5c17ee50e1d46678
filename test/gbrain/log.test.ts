import { describe, expect, it } from 'vitest';
import { parseLog } from '../../services/gbrain/log.js';

describe('parseLog', () => {
  it('reads timeline-style bullets, Karpathy headings and date headings', () => {
    const md = [
      '# Ingest log',
      '',
      'Intro text before any entry is ignored.',
      '',
      '- **2024-01-15** | meeting — Board call, updated [Pedro](people/pedro.md) and [Brex](companies/brex.md)',
      '- **2024-02-01** | article — https://example.com/post read',
      '  Detail line.',
      '',
      '## [2024-03-05] ingest | Karpathy entry',
      '- touched [Zoë](people/zoë-müller.md)',
      '',
      '## 2024-04-10 09:30',
      '- conversation — first bullet',
      '- second bullet, `sources/notes.md`',
      '',
      '## Undated heading',
      '- not an entry',
      '2024-05-01: doc — plain dated line',
    ].join('\n');
    const log = parseLog(md);
    expect(log.map((r) => [r.date, r.time, r.sourceType, r.summary, r.line])).toEqual([
      ['2024-01-15', '', 'meeting', 'Board call, updated [Pedro](people/pedro.md) and [Brex](companies/brex.md)', 5],
      ['2024-02-01', '', 'article', 'https://example.com/post read', 6],
      ['2024-03-05', '', 'ingest', 'Karpathy entry', 9],
      ['2024-04-10', '09:30', 'conversation', 'first bullet', 13],
      ['2024-04-10', '09:30', 'log', 'second bullet, `sources/notes.md`', 14],
      ['2024-05-01', '', 'doc', 'plain dated line', 18],
    ]);
    expect(log[0]!.pagesUpdated).toEqual(['people/pedro', 'companies/brex']);
    expect(log[1]!.sourceRef).toBe('https://example.com/post');
    expect(log[1]!.detail).toBe('  Detail line.');
    expect(log[2]!.pagesUpdated).toEqual(['people/zoë-müller']);
    expect(log[2]!.detail).toBe('- touched [Zoë](people/zoë-müller.md)');
    expect(log[4]!.sourceRef).toBe('sources/notes.md');
  });

  it('is empty for an empty or undated log, and ignores fenced code', () => {
    expect(parseLog('')).toEqual([]);
    expect(parseLog('# Log\n\nnothing yet\n')).toEqual([]);
    expect(parseLog('```\n- **2024-01-01** | x — y\n```\n')).toEqual([]);
  });
});
