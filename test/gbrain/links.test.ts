import { describe, expect, it } from 'vitest';
import { extractLinks, resolveLinkTarget } from '../../services/gbrain/links.js';

describe('extractLinks', () => {
  it('resolves relative links into slugs with the sentence as context', () => {
    const md = 'Pedro runs [Brex](../companies/brex.md). He works with [Zoë](zoë-müller.md) and [Ana](./ana.md) daily! Other text.';
    expect(extractLinks(md, 'people/pedro')).toEqual([
      { toSlug: 'companies/brex', text: 'Brex', context: 'Pedro runs [Brex](../companies/brex.md).', anchor: '', line: 1 },
      { toSlug: 'people/zoë-müller', text: 'Zoë', context: 'He works with [Zoë](zoë-müller.md) and [Ana](./ana.md) daily!', anchor: '', line: 1 },
      { toSlug: 'people/ana', text: 'Ana', context: 'He works with [Zoë](zoë-müller.md) and [Ana](./ana.md) daily!', anchor: '', line: 1 },
    ]);
  });

  it('handles nested paths, anchors, encoded names, angle brackets and titles', () => {
    const md = [
      '- [Deep](../../a/b.md)',
      '- [Section](../people/x.md#open-threads)',
      '- [Encoded](../people/zo%C3%AB-m%C3%BCller.md)',
      '- [Spaced](<../people/with space.md>)',
      '- [Titled](../people/t.md "the title")',
      '- [Root](/concepts/root.md)',
      '- [日本](../concepts/日本語.md)',
    ].join('\n');
    const links = extractLinks(md, 'projects/deep/nested/page');
    expect(links.map((l) => [l.toSlug, l.anchor])).toEqual([
      ['projects/a/b', ''],
      ['projects/deep/people/x', 'open-threads'],
      ['projects/deep/people/zoë-müller', ''],
      ['projects/deep/people/with space', ''],
      ['projects/deep/people/t', ''],
      ['concepts/root', ''],
      ['projects/deep/concepts/日本語', ''],
    ]);
    expect(links[0]!.context).toBe('[Deep](../../a/b.md)');
  });

  it('ignores web links, images, non-markdown files, bare anchors, code, and paths out of the brain', () => {
    const md = [
      '[Web](https://example.com/page.md) [Mail](mailto:a@b.md) ![Img](../media/logo.md) [Pdf](../docs/x.pdf) [Anchor](#top)',
      'Inline `[code](../people/code.md)` and ``[double `tick`](../people/code2.md)``.',
      '```',
      '[fenced](../people/fenced.md)',
      '```',
      '[Out](../../../outside.md)',
      '[Kept](../people/kept.md)',
    ].join('\n');
    expect(extractLinks(md, 'people/x').map((l) => l.toSlug)).toEqual(['people/kept']);
  });

  it('reports the line of each link, CRLF or not', () => {
    expect(extractLinks('a\r\n\r\nsee [X](x.md)\r\n', 'concepts/y').map((l) => [l.toSlug, l.line])).toEqual([['concepts/x', 3]]);
  });
});

describe('resolveLinkTarget', () => {
  it('works from a root page and keeps a malformed escape as written', () => {
    expect(resolveLinkTarget('root-note', 'people/x.md')).toEqual({ slug: 'people/x', anchor: '' });
    expect(resolveLinkTarget('root-note', '100%.md')).toEqual({ slug: '100%', anchor: '' });
    expect(resolveLinkTarget('root-note', '../x.md')).toBeNull();
  });
});
