import { describe, expect, it } from 'vitest';
import { pageTags, pageTitle, parsePage, renderChangedPage, renderPage } from '../../services/gbrain/page.js';

const roundTrips = (x: Buffer | string): void => {
  const bytes = typeof x === 'string' ? Buffer.from(x, 'utf8') : x;
  const page = parsePage(bytes, 'concepts/t.md');
  expect(renderPage(page).equals(bytes)).toBe(true);
  expect(renderChangedPage(page).equals(bytes)).toBe(true);
  // A string gives the same page as its bytes (bytes that are not UTF-8 have no string form).
  if (page.raw.encoding === 'utf8') expect(renderPage(parsePage(bytes.toString('utf8'), 'concepts/t.md')).equals(bytes)).toBe(true);
};

describe('parsePage', () => {
  it('splits frontmatter, compiled truth and timeline', () => {
    const text = '---\ntitle: Pedro\ntags: [a, b]\n---\n\n# Pedro\n\nState.\n\n---\n\n- **2024-01-01** | meeting — Met.\n';
    const page = parsePage(text, 'people/pedro.md');
    expect(page.slug).toBe('people/pedro');
    expect(page.frontmatter).toEqual({ title: 'Pedro', tags: ['a', 'b'] });
    expect(Object.keys(page.frontmatter)).toEqual(['title', 'tags']);
    expect(page.compiledTruth).toBe('# Pedro\n\nState.');
    expect(page.timeline).toBe('- **2024-01-01** | meeting — Met.');
    expect(page.raw.separator).toBe('\n\n---\n\n');
    expect(page.raw.frontmatter).toBe('---\ntitle: Pedro\ntags: [a, b]\n---\n');
    expect(page.lineEnding).toBe('lf');
    expect(page.warnings).toEqual([]);
    expect(pageTitle(page)).toBe('Pedro');
    expect(pageTags(page)).toEqual(['a', 'b']);
    roundTrips(text);
  });

  it('keeps CRLF, normalises the parsed values to LF', () => {
    const text = '---\r\ntitle: X\r\n---\r\n\r\nTruth line 1\r\nline 2\r\n\r\n---\r\n\r\n- **2024-01-01** | a — b\r\n';
    const page = parsePage(text, 'concepts/x.md');
    expect(page.lineEnding).toBe('crlf');
    expect(page.compiledTruth).toBe('Truth line 1\nline 2');
    expect(page.timeline).toBe('- **2024-01-01** | a — b');
    expect(page.frontmatter).toEqual({ title: 'X' });
    roundTrips(text);
  });

  it('keeps mixed line endings', () => {
    const text = '---\ntitle: X\r\n---\n\r\nA\r\nB\n\n---\r\n\nT\r\n';
    const page = parsePage(text, 'concepts/x.md');
    expect(page.lineEnding).toBe('mixed');
    expect(page.compiledTruth).toBe('A\nB');
    expect(page.timeline).toBe('T');
    roundTrips(text);
  });

  it('keeps a UTF-8 BOM, from bytes and from a string', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('---\ntitle: Zoë\n---\n\n日本語\n', 'utf8')]);
    const page = parsePage(bytes, 'people/zoë.md');
    expect(page.raw.bom).toBe(true);
    expect(page.frontmatter).toEqual({ title: 'Zoë' });
    expect(page.compiledTruth).toBe('日本語');
    roundTrips(bytes);
    expect(parsePage('\uFEFF# Hi\n', 'a.md').raw.bom).toBe(true);
  });

  it('handles no frontmatter, empty frontmatter, no timeline, an empty file, no trailing newline', () => {
    const none = parsePage('# Title\n\nText.\n', 'concepts/a.md');
    expect(none.raw.frontmatter).toBeNull();
    expect(none.frontmatter).toEqual({});
    expect(none.compiledTruth).toBe('# Title\n\nText.');
    expect(none.raw.separator).toBeNull();
    expect(none.timeline).toBe('');

    const empty = parsePage('---\n---\n\nBody.\n', 'concepts/a.md');
    expect(empty.raw.frontmatter).toBe('---\n---\n');
    expect(empty.frontmatter).toEqual({});
    expect(empty.compiledTruth).toBe('Body.');
    expect(empty.warnings).toEqual([]);

    const nothing = parsePage('', 'concepts/empty.md');
    expect(nothing.compiledTruth).toBe('');
    expect(nothing.lineEnding).toBe('none');
    expect(renderPage(nothing).length).toBe(0);

    const noNewline = parsePage('---\na: 1\n---\nText\n\n---\n\n- **2024-01-01** | x — end', 'concepts/a.md');
    expect(noNewline.timeline).toBe('- **2024-01-01** | x — end');
    for (const t of ['# Title\n\nText.\n', '---\n---\n\nBody.\n', '', '---\n---\n', '---\n---', 'x', '\n', '\n\n---\n\n', 'A\n---']) roundTrips(t);
  });

  it('does not take --- inside fenced code for the separator', () => {
    const text = '# T\n\n```yaml\n---\na: 1\n---\n```\n\n~~~~\n---\n~~~~\n\nAfter.\n\n---\n\nTimeline\n';
    const page = parsePage(text, 'concepts/a.md');
    expect(page.compiledTruth).toBe('# T\n\n```yaml\n---\na: 1\n---\n```\n\n~~~~\n---\n~~~~\n\nAfter.');
    expect(page.timeline).toBe('Timeline');
    roundTrips(text);
    // An unclosed fence runs to the end: no separator at all.
    expect(parsePage('```\n---\n', 'a.md').raw.separator).toBeNull();
  });

  it('takes only an exact --- line as the separator', () => {
    const text = 'A\n\n--- \n\n***\n\n - - -\n\n ---\n\n----\n\nB\n\n---\n\nT\n\n---\n\nStill timeline\n';
    const page = parsePage(text, 'concepts/a.md');
    expect(page.compiledTruth).toBe('A\n\n--- \n\n***\n\n - - -\n\n ---\n\n----\n\nB');
    expect(page.timeline).toBe('T\n\n---\n\nStill timeline');
    roundTrips(text);
  });

  it('keeps odd spacing around the separator in the separator', () => {
    const text = 'A  \n \t\n\n---\n  \n\n  indented timeline\n';
    const page = parsePage(text, 'concepts/a.md');
    expect(page.raw.compiledTruth).toBe('A  ');
    expect(page.raw.separator).toBe('\n \t\n\n---\n  \n\n');
    expect(page.timeline).toBe('  indented timeline');
    roundTrips(text);
  });

  it('keeps invalid YAML frontmatter verbatim with a warning naming the file', () => {
    const text = '---\ntitle: [unclosed\n---\n\nBody\n';
    const page = parsePage(text, 'concepts/bad.md');
    expect(page.frontmatter).toEqual({});
    expect(page.warnings).toHaveLength(1);
    expect(page.warnings[0]).toMatch(/^concepts\/bad\.md: the frontmatter is not valid YAML/);
    expect(page.compiledTruth).toBe('Body');
    roundTrips(text);
    const list = parsePage('---\n- a\n- b\n---\nx\n', 'concepts/list.md');
    expect(list.warnings[0]).toMatch(/concepts\/list\.md: the frontmatter is not a key: value mapping/);
    const dup = parsePage('---\na: 1\na: 2\n---\nx\n', 'concepts/dup.md');
    expect(dup.warnings[0]).toMatch(/not valid YAML/);
  });

  it('treats an unclosed frontmatter as text, with a warning', () => {
    const text = '---\ntitle: x\nno closing line\n';
    const page = parsePage(text, 'concepts/open.md');
    expect(page.raw.frontmatter).toBeNull();
    expect(page.warnings[0]).toMatch(/concepts\/open\.md: .*never closed/);
    expect(page.compiledTruth).toBe('---\ntitle: x\nno closing line');
    roundTrips(text);
    roundTrips('---');
    roundTrips('---\n');
  });

  it('keeps bytes that are not valid UTF-8', () => {
    const bytes = Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a, 0xc3, 0x0a]);
    const page = parsePage(bytes, 'concepts/latin.md');
    expect(page.raw.encoding).toBe('latin1');
    expect(page.warnings[0]).toMatch(/concepts\/latin\.md: not valid UTF-8/);
    roundTrips(bytes);
  });

  it('keeps a lone CR as content', () => {
    roundTrips('A\rB\n---\r\nT\r');
    expect(parsePage('A\n---\r', 'a.md').raw.separator).toBeNull();
  });

  it('takes the title from frontmatter, else the first heading, else the slug', () => {
    expect(pageTitle(parsePage('# Heading\n', 'concepts/x.md'))).toBe('Heading');
    expect(pageTitle(parsePage('text\n', 'concepts/zoë-müller.md'))).toBe('zoë-müller');
    expect(pageTags(parsePage('---\ntags: a, b ,a\n---\n', 'x.md'))).toEqual(['a', 'b']);
  });
});

describe('renderChangedPage', () => {
  const base = '---\r\ntitle: X # the title\r\ntags: [a]\r\n---\r\n\r\nOld truth.\r\n\r\n---\r\n\r\n- **2024-01-01** | a — b\r\n';

  it('re-renders only what changed, in the page line ending', () => {
    const page = parsePage(base, 'concepts/x.md');
    page.timeline = `- **2024-02-01** | c — d\n${page.timeline}`;
    const out = renderChangedPage(page).toString('utf8');
    expect(out).toBe('---\r\ntitle: X # the title\r\ntags: [a]\r\n---\r\n\r\nOld truth.\r\n\r\n---\r\n\r\n- **2024-02-01** | c — d\r\n- **2024-01-01** | a — b\r\n');
  });

  it('keeps comments and untouched keys of edited frontmatter', () => {
    const page = parsePage(base, 'concepts/x.md');
    const out = renderChangedPage(page, { frontmatter: { ...page.frontmatter, tags: ['a', 'b'], score: 3 } }).toString('utf8');
    expect(out).toContain('title: X # the title\r\n');
    const again = parsePage(out, 'concepts/x.md');
    expect(again.frontmatter).toEqual({ title: 'X', tags: ['a', 'b'], score: 3 });
    expect(again.compiledTruth).toBe('Old truth.');
    expect(again.lineEnding).toBe('crlf');
  });

  it('adds a separator and timeline to a page without one, keeping the BOM', () => {
    const page = parsePage('\uFEFF# T\n\nTruth.\n', 'concepts/x.md');
    const out = renderChangedPage(page, { timeline: '- **2024-01-01** | x — y' });
    expect(out.toString('utf8')).toBe('\uFEFF# T\n\nTruth.\n\n---\n\n- **2024-01-01** | x — y\n');
  });

  it('writes new frontmatter in the canonical layout', () => {
    const page = parsePage('Truth.\n', 'concepts/x.md');
    expect(renderChangedPage(page, { frontmatter: { title: 'New' } }).toString()).toBe('---\ntitle: New\n---\n\nTruth.\n');
    const empty = parsePage('', 'concepts/x.md');
    expect(renderChangedPage(empty, { compiledTruth: 'Hello', timeline: 'T' }).toString()).toBe('Hello\n\n---\n\nT\n');
  });

  it('drops the separator when the timeline is emptied', () => {
    const page = parsePage('---\na: 1\n---\n\nTruth\n\n---\n\nT\n', 'concepts/x.md');
    expect(renderChangedPage(page, { timeline: '' }).toString()).toBe('---\na: 1\n---\n\nTruth\n');
  });

  it('replaces invalid frontmatter only when the frontmatter is edited', () => {
    const page = parsePage('---\nbad: [\n---\nText\n', 'concepts/x.md');
    expect(renderChangedPage(page, { compiledTruth: 'New' }).toString()).toBe('---\nbad: [\n---\nNew\n');
    expect(renderChangedPage(page, { frontmatter: { ok: true } }).toString()).toBe('---\nok: true\n---\nText\n');
  });
});
