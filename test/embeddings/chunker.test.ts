import { describe, expect, it } from 'vitest';
import { chunkCard, contentHash, type Chunk } from '../../services/embeddings/chunker.js';

/** Invariants every chunking must satisfy, whatever the input. */
function expectWellFormed(chunks: Chunk[], maxChars: number) {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.text.trim()).not.toBe('');
    expect(c.text.length).toBeLessThanOrEqual(maxChars);
    expect(c.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
}

const words = (n: number, seed = 'word') => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');

describe('chunkCard', () => {
  it('makes an opening chunk and one chunk per ## section, each carrying its context', () => {
    const chunks = chunkCard({
      title: 'Nightly backups',
      summary: 'How the database is backed up.',
      body: 'Runs from cron.\n\n## Schedule\n\nEvery night at 02:00.\n\n### Details\n\nUTC.\n\n## Restore\n\nUse pg_restore.',
    });
    expect(chunks).toEqual([
      { index: 0, heading: null, text: '# Nightly backups\n\nHow the database is backed up.\n\nRuns from cron.' },
      { index: 1, heading: 'Schedule', text: '# Nightly backups\n## Schedule\n\nEvery night at 02:00.\n\n### Details\n\nUTC.' },
      { index: 2, heading: 'Restore', text: '# Nightly backups\n## Restore\n\nUse pg_restore.' },
    ]);
  });

  it('does not say the title again: a summary equal to it, or a leading # heading equal to it', () => {
    // A GBrain timeline line's episode: title and summary are the same text.
    expect(chunkCard({ title: 'Raised the seed round.', summary: 'Raised  the seed round.', body: 'email' })).toEqual([
      { index: 0, heading: null, text: '# Raised the seed round.\n\nemail' },
    ]);
    // A GBrain page: its body opens with the title as an H1; only the sections are left.
    const page = chunkCard({ title: 'Lumen Notes', summary: '', body: '# Lumen Notes\n\n## State\n\nShipped.\n\n## Open Threads\n\n- Pricing.' });
    expect(page.map((c) => c.heading)).toEqual(['State', 'Open Threads']);
    // What follows the H1 stays, and a different H1 or summary is content.
    expect(chunkCard({ title: 'Lumen Notes', body: '# Lumen Notes #\nIntro.\n\n## A\nx' })[0]!.text).toBe('# Lumen Notes\n\nIntro.');
    expect(chunkCard({ title: 'Lumen Notes', summary: 'Lumen notes, summarised', body: '# Other heading\n\n## A\nx' })[0]!.text).toBe(
      '# Lumen Notes\n\nLumen notes, summarised\n\n# Other heading',
    );
    // A card that is only its title keeps its one chunk.
    expect(chunkCard({ title: 'Just a title', summary: 'Just a title', body: '# Just a title' })).toEqual([{ index: 0, heading: null, text: '# Just a title' }]);
  });

  it('does not treat ## inside fenced code blocks as a heading', () => {
    const body = [
      'Intro.',
      '## Script',
      '```sh',
      '## not a heading, a shell comment',
      'pg_dump brain',
      '```',
      '~~~~',
      '## also not one',
      '```',
      '## still inside the tilde fence',
      '~~~~',
      '## After',
      'Done.',
    ].join('\n');
    const chunks = chunkCard({ title: 'T', body });
    expect(chunks.map((c) => c.heading)).toEqual([null, 'Script', 'After']);
    expect(chunks[1]!.text).toContain('## not a heading, a shell comment');
    expect(chunks[1]!.text).toContain('## still inside the tilde fence');
  });

  it('recognises heading variants and ignores near misses', () => {
    const body = 'a\n  ## Indented ##\nb\n##NoSpace\n#### Deep\n##\nc';
    const chunks = chunkCard({ title: 'T', body });
    expect(chunks.map((c) => c.heading)).toEqual([null, 'Indented', '']);
    expect(chunks[1]!.text).toContain('##NoSpace');
  });

  it('gives a card with only a title one chunk, and drops empty sections', () => {
    expect(chunkCard({ title: 'Just a title', body: '' })).toEqual([{ index: 0, heading: null, text: '# Just a title' }]);
    expect(chunkCard({ title: 'Just a title', body: '## Empty\n\n## Also empty\n' })).toHaveLength(1);
    expect(chunkCard({ title: '', summary: '', body: '  \n' })).toEqual([]);
  });

  it('starts with the first section when there is no summary or preamble', () => {
    const chunks = chunkCard({ title: 'T', body: '## First\nx\n## Empty\n## Second\ny' });
    expect(chunks.map((c) => [c.index, c.heading])).toEqual([
      [0, 'First'],
      [1, 'Second'],
    ]);
  });

  it('splits a long section at paragraph boundaries first', () => {
    const paras = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}. ${words(15, `p${i}w`)}`);
    const maxChars = 300;
    const chunks = chunkCard({ title: 'Long', body: `## Part\n\n${paras.join('\n\n')}` }, { maxChars });
    expectWellFormed(chunks, maxChars);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.heading).toBe('Part');
      expect(c.text.startsWith('# Long\n## Part\n\n')).toBe(true);
    }
    // Every paragraph fits the budget on its own, so none is cut.
    for (const p of paras) expect(chunks.some((c) => c.text.includes(p))).toBe(true);
  });

  it('falls back to sentences, then words, then a hard cut, losing nothing', () => {
    const sentences = Array.from({ length: 8 }, (_, i) => `Sentence ${i} says ${words(8, `s${i}w`)}.`).join(' ');
    const runOn = words(80, 'r');
    const blob = 'x'.repeat(500);
    const body = `${sentences}\n\n${runOn}\n\n${blob}`;
    const maxChars = 120;
    const chunks = chunkCard({ title: 'Split', body }, { maxChars });
    expectWellFormed(chunks, maxChars);
    const content = chunks.map((c) => c.text.replace(/^# Split\n\n/, '')).join(' ');
    for (const w of [...sentences.split(/\s+/), ...runOn.split(' ')]) expect(content).toContain(w);
    expect(content.replace(/[^x]/g, '').length).toBeGreaterThanOrEqual(500);
    // Sentence boundaries are used when they exist: a chunk ends with a full stop.
    expect(chunks[0]!.text.endsWith('.')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const chunks = chunkCard({ title: 'Emoji', body: '😀'.repeat(300) }, { maxChars: 61 });
    expectWellFormed(chunks, 61);
    expect(chunks.map((c) => c.text.replace('# Emoji\n\n', '')).join('')).toBe('😀'.repeat(300));
  });

  it('repeats the tail of the previous piece when overlapChars is set', () => {
    const body = Array.from({ length: 10 }, (_, i) => `Line ${i} ${words(10, `o${i}w`)}.`).join('\n\n');
    const maxChars = 200;
    const chunks = chunkCard({ title: 'Ov', body }, { maxChars, overlapChars: 40 });
    expectWellFormed(chunks, maxChars);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!.text;
      const head = chunks[i]!.text.replace('# Ov\n\n', '').split(' ').slice(0, 2).join(' ');
      expect(prev).toContain(head);
    }
  });

  it('keeps chunks within maxChars even with a runaway title', () => {
    const chunks = chunkCard({ title: 'T'.repeat(1000), summary: 'short', body: `## ${'H'.repeat(1000)}\n\n${words(100)}` }, { maxChars: 200 });
    expectWellFormed(chunks, 200);
    expect(chunks[0]!.text).toContain('…');
  });

  it('treats CRLF like LF and is deterministic', () => {
    const card = { title: 'T', summary: 's', body: 'a\r\n\r\n## H\r\nb\r\n' };
    const lf = chunkCard({ title: 'T', summary: 's', body: 'a\n\n## H\nb\n' });
    expect(chunkCard(card)).toEqual(lf);
    expect(chunkCard(card)).toEqual(chunkCard(card));
  });

  it('rejects unusable options', () => {
    expect(() => chunkCard({ title: 'T', body: 'x' }, { maxChars: 10 })).toThrow(RangeError);
    expect(() => chunkCard({ title: 'T', body: 'x' }, { overlapChars: -1 })).toThrow(RangeError);
  });
});

describe('contentHash', () => {
  const card = { title: 'Nightly backups', summary: 'How.', body: 'x\n## A\ny' };

  it('is a stable sha256 hex of the chunk texts', () => {
    const h = contentHash(chunkCard(card));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash(chunkCard({ ...card }))).toBe(h);
  });

  it('changes when any chunk text or the chunk boundaries change', () => {
    const h = contentHash(chunkCard(card));
    expect(contentHash(chunkCard({ ...card, body: 'x\n## A\nz' }))).not.toBe(h);
    expect(contentHash([{ text: 'ab' }, { text: 'c' }])).not.toBe(contentHash([{ text: 'a' }, { text: 'bc' }]));
  });
});
