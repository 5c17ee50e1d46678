// Splitting what was typed into phrases, exclusions and loose words (pure; the SQL side is
// tested on both databases in keyword.test.ts).
import { describe, expect, it } from 'vitest';
import { parseTextQuery } from '../../services/search/text-query.js';

describe('parseTextQuery', () => {
  it('leaves a plain question as loose words', () => {
    expect(parseTextQuery('how do I restore the backups?')).toEqual({ phrases: '', exclusions: '', words: 'how do I restore the backups?' });
  });

  it('takes quoted phrases and -exclusions out, keeping the rest', () => {
    expect(parseTextQuery('"full backup" nightly -NAS -"every month" pre-commit')).toEqual({
      phrases: '"full backup"',
      exclusions: '-NAS -"every month"',
      words: 'nightly pre-commit',
    });
  });

  it('treats an unclosed quote as a phrase to the end, and a minus inside a word as part of it', () => {
    expect(parseTextQuery('x-ray "half open')).toEqual({ phrases: '"half open"', exclusions: '', words: 'x-ray' });
  });

  it('drops empty phrases and a lone minus', () => {
    expect(parseTextQuery('"" - backup -""')).toEqual({ phrases: '', exclusions: '', words: '- backup' });
  });
});
