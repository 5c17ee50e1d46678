// Property-style tests: seeded random pages built from the awkward pieces (line endings,
// BOM, frontmatter shapes, separators, fences, unicode) must all round-trip byte for byte,
// and edited pages must read back as edited.
import { describe, expect, it } from 'vitest';
import { parsePage, renderChangedPage, renderPage } from '../../services/gbrain/page.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BODY_LINES = ['Text with [a link](../people/x.md).', 'Zoë Müller 日本語のテキスト', '', '   ', '\t', '---', '--- ', ' ---', '----', '***', '- - -', '```', '```yaml', '~~~', '  ```', '# Heading', '## State', '- **2024-01-01** | meeting — Summary', '  detail line', 'a\rb', '\r', '...'];
const FRONTMATTERS: ((eol: () => string) => string)[] = [
  () => '',
  (e) => `---${e()}---${e()}`,
  (e) => `---${e()}title: Zoë${e()}tags: [a, b]${e()}created: 2024-01-01${e()}---${e()}`,
  (e) => `---${e()}title: [unclosed${e()}---${e()}`,
  (e) => `---${e()}- a list${e()}---${e()}`,
  (e) => `---${e()}title: unclosed frontmatter${e()}`,
  (e) => `---${e()}a: 1${e()}---`,
];

function randomPage(rnd: () => number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const style = pick(['lf', 'crlf', 'mixed']);
  const eol = (): string => (style === 'lf' ? '\n' : style === 'crlf' ? '\r\n' : pick(['\n', '\r\n']));
  let text = pick(FRONTMATTERS)(eol);
  const n = Math.floor(rnd() * 14);
  for (let i = 0; i < n; i++) text += pick(BODY_LINES) + (i === n - 1 && rnd() < 0.3 ? '' : eol());
  const bom = rnd() < 0.2 ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0);
  return Buffer.concat([bom, Buffer.from(text, 'utf8')]);
}

describe('page round trip, property style', () => {
  it('renderPage(parsePage(x)) is x for 3000 random pages', () => {
    const rnd = prng(20240501);
    for (let i = 0; i < 3000; i++) {
      const bytes = randomPage(rnd);
      const page = parsePage(bytes, 'concepts/random.md');
      const back = renderPage(page);
      if (!back.equals(bytes)) expect(JSON.stringify(back.toString('utf8'))).toBe(JSON.stringify(bytes.toString('utf8')));
      expect(renderChangedPage(page).toString('latin1'), JSON.stringify(bytes.toString('utf8'))).toBe(bytes.toString('latin1'));
      expect(page.compiledTruth.includes('\r\n')).toBe(false);
      expect(page.timeline.includes('\r\n')).toBe(false);
    }
  });

  it('round-trips any bytes, from an alphabet of the awkward ones', () => {
    const rnd = prng(9);
    const ALPHABET = [0x2d, 0x2d, 0x2d, 0x0a, 0x0a, 0x0d, 0x60, 0x7e, 0x20, 0x61, 0xef, 0xbb, 0xbf, 0xff, 0xc3, 0xa9, 0x3a];
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(rnd() * 40) }, () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]!));
      const page = parsePage(bytes, 'concepts/bytes.md');
      expect(renderPage(page).equals(bytes), bytes.toString('hex')).toBe(true);
      expect(renderChangedPage(page).equals(bytes), bytes.toString('hex')).toBe(true);
    }
  });

  it('edited pages read back with the edits, in their own line ending and BOM', () => {
    const rnd = prng(77);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const TRUTH = ['Edited truth.', 'Zoë 日本語', '```\n---\n```', '# Heading', '- item', '', '  indented'];
    const TIMELINE = ['- **2024-02-02** | email — New entry', '  detail', '---', 'text', ''];
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      const bytes = randomPage(rnd);
      const page = parsePage(bytes, 'concepts/random.md');
      if (page.warnings.some((w) => w.includes('never closed'))) continue; // its "---" line would become the separator
      const edits: { frontmatter?: Record<string, unknown>; compiledTruth?: string; timeline?: string } = {};
      if (rnd() < 0.4) edits.frontmatter = { title: `Edited ${i}`, tags: ['x'] };
      if (rnd() < 0.5) edits.compiledTruth = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(TRUTH)).join('\n');
      if (rnd() < 0.5) edits.timeline = Array.from({ length: Math.floor(rnd() * 4) }, () => pick(TIMELINE)).join('\n');
      let out: Buffer;
      try {
        out = renderChangedPage(page, edits);
      } catch (err) {
        // Only a page whose text moves the separator may be refused: an open fence above it.
        expect((err as Error).message).toMatch(/^concepts\/random\.md: the edited page would not read back as edited/);
        refused++;
        continue;
      }
      const again = parsePage(out, 'concepts/random.md');
      const norm = (s: string): string => s.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
      const context = JSON.stringify({ in: bytes.toString('utf8'), edits, out: out.toString('utf8') });
      expect(again.compiledTruth, context).toBe(norm(edits.compiledTruth ?? page.compiledTruth));
      expect(again.timeline, context).toBe(norm(edits.timeline ?? page.timeline));
      if (edits.frontmatter) expect(again.frontmatter, context).toEqual(edits.frontmatter);
      expect(again.raw.bom).toBe(page.raw.bom);
      if (page.lineEnding === 'crlf' && again.lineEnding !== 'none') expect(again.lineEnding, context).toBe('crlf');
      if (page.lineEnding === 'lf' && again.lineEnding !== 'none') expect(again.lineEnding, context).toBe('lf');
    }
    expect(refused).toBeLessThan(400); // random pages often leave a fence open; most must still render
  });
});
