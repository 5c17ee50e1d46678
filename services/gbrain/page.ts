// One GBrain page: YAML frontmatter, "compiled truth" above the first `---` line, timeline
// below it. parsePage keeps the exact raw pieces next to the parsed values, so that
// renderPage(parsePage(x)) gives x back byte for byte, whatever the line endings, BOM or
// spacing; renderChangedPage re-renders only the pieces that were edited.
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, parseDocument } from 'yaml';
import { FenceTracker, detectLineEnding, dominantEol, isBlank, splitLines, toLf, withEol, type LineEndingStyle } from './text.js';

const BOM_BYTES = Buffer.from([0xef, 0xbb, 0xbf]);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The exact source pieces: bom + frontmatter + compiledTruth + separator + timeline = the file. */
export interface RawPage {
  readonly bom: boolean;
  /** 'latin1' only for bytes that are not valid UTF-8: latin1 maps every byte to a char and back. */
  readonly encoding: 'utf8' | 'latin1';
  /** From the opening `---` through the closing `---` and its line ending; null when absent. */
  readonly frontmatter: string | null;
  /** Between the frontmatter and the separator (or the end), with its blank lines. */
  readonly compiledTruth: string;
  /** The `---` line with the line ending before it and the blank lines around it; null when absent. */
  readonly separator: string | null;
  readonly timeline: string;
}

export interface ParsedPage {
  /** POSIX path inside the brain, e.g. "people/pedro-franceschi.md". */
  readonly relPath: string;
  /** relPath without ".md": "people/pedro-franceschi". */
  readonly slug: string;
  /** Parsed frontmatter, key order kept; {} when absent or not valid (see warnings). */
  frontmatter: Record<string, unknown>;
  /** Above the line, LF endings, leading blank lines and trailing whitespace removed. */
  compiledTruth: string;
  /** Below the line, normalised the same way; "" when there is no separator. */
  timeline: string;
  readonly lineEnding: LineEndingStyle;
  /** Things that parsed but not cleanly (invalid YAML, unclosed frontmatter, not UTF-8), each naming the file. */
  readonly warnings: readonly string[];
  readonly raw: RawPage;
}

export type PageEdits = Partial<Pick<ParsedPage, 'frontmatter' | 'compiledTruth' | 'timeline'>>;

export function slugForPath(relPath: string): string {
  return relPath.replace(/\\/g, '/').replace(/\.md$/i, '');
}

export function parsePage(bytes: Buffer | string, relPath: string): ParsedPage {
  const warnings: string[] = [];
  const { text, bom, encoding } = decode(bytes, relPath, warnings);
  const lines = splitLines(text);

  // Frontmatter: the first line is exactly `---` and a later line is exactly `---`.
  let frontmatter: string | null = null;
  let bodyLine = 0;
  if (lines[0]?.text === '---') {
    const close = lines.findIndex((l, i) => i > 0 && l.text === '---');
    if (close === -1) {
      warnings.push(`${relPath}: the first line is "---" but the frontmatter is never closed; the whole file is taken as page text`);
      bodyLine = 1; // that first line opened (intended) frontmatter: it is never the separator
    } else {
      const closing = lines[close]!;
      frontmatter = text.slice(0, closing.start + closing.text.length + closing.eol.length);
      bodyLine = close + 1;
    }
  }
  const bodyStart = frontmatter?.length ?? 0;

  // Separator: the first line that is exactly `---`, outside fenced code.
  const fences = new FenceTracker();
  let sep = -1;
  for (let i = bodyLine; i < lines.length; i++) {
    if (fences.step(lines[i]!.text)) continue;
    if (lines[i]!.text === '---') {
      sep = i;
      break;
    }
  }

  let compiledTruth = text.slice(bodyStart);
  let separator: string | null = null;
  let timeline = '';
  if (sep !== -1) {
    let first = sep;
    while (first > bodyLine && isBlank(lines[first - 1]!.text)) first--;
    // The separator starts at the line ending of the last text line above it, so that the
    // usual "\n\n---\n\n" is the separator and the compiled truth ends with its last character.
    const above = first > bodyLine ? lines[first - 1]! : null;
    const sepStart = above ? above.start + above.text.length : Math.max(lines[first]!.start, bodyStart);
    let last = sep;
    while (last + 1 < lines.length && isBlank(lines[last + 1]!.text)) last++;
    const sepEnd = lines[last]!.start + lines[last]!.text.length + lines[last]!.eol.length;
    compiledTruth = text.slice(bodyStart, sepStart);
    separator = text.slice(sepStart, sepEnd);
    timeline = text.slice(sepEnd);
  }

  const raw: RawPage = { bom, encoding, frontmatter, compiledTruth, separator, timeline };
  const fm = parseFrontmatter(frontmatter, relPath);
  warnings.push(...fm.warnings);
  return {
    relPath: relPath.replace(/\\/g, '/'),
    slug: slugForPath(relPath),
    frontmatter: fm.value,
    compiledTruth: normaliseBlock(compiledTruth),
    timeline: normaliseBlock(timeline),
    lineEnding: detectLineEnding(text),
    warnings,
    raw,
  };
}

/** The page exactly as it was read: the raw pieces, concatenated and re-encoded. */
export function renderPage(page: ParsedPage): Buffer {
  const r = page.raw;
  return encode((r.frontmatter ?? '') + r.compiledTruth + (r.separator ?? '') + r.timeline, r.bom, r.encoding);
}

/**
 * Renders a page whose frontmatter, compiled truth or timeline were edited (on the page
 * object or through `edits`). Unchanged pieces are kept byte for byte; changed ones are
 * written in the canonical GBrain layout (frontmatter, blank line, compiled truth,
 * "\n\n---\n\n", timeline) with the page's dominant line ending and its BOM. Changed
 * frontmatter keeps the comments and order of untouched keys (new keys go last).
 */
export function renderChangedPage(page: ParsedPage, edits: PageEdits = {}): Buffer {
  const r = page.raw;
  const now = {
    frontmatter: edits.frontmatter ?? page.frontmatter,
    compiledTruth: normaliseBlock(edits.compiledTruth ?? page.compiledTruth),
    timeline: normaliseBlock(edits.timeline ?? page.timeline),
  };
  const was = parseFrontmatter(r.frontmatter, page.relPath);
  const fmChanged = !isDeepStrictEqual(now.frontmatter, was.value);
  const ctChanged = now.compiledTruth !== normaliseBlock(r.compiledTruth);
  const tlChanged = now.timeline !== normaliseBlock(r.timeline);
  if (!fmChanged && !ctChanged && !tlChanged) return renderPage(page);

  const original = (r.frontmatter ?? '') + r.compiledTruth + (r.separator ?? '') + r.timeline;
  const eol = dominantEol(original);
  // How the file ended: keep a missing final newline missing.
  const end = original === '' || original.endsWith('\n') ? eol : '';

  const fm = fmChanged ? renderFrontmatter(r.frontmatter, was.value, now.frontmatter, eol) : r.frontmatter ?? '';
  const ct = splitWs(r.compiledTruth);
  const tl = splitWs(r.timeline);
  const ctText = ctChanged ? withEol(now.compiledTruth, eol) : ct.core;
  const tlText = tlChanged ? withEol(now.timeline, eol) : tl.core;
  // A blank line between new frontmatter (or frontmatter that had no text under it) and the text.
  const ctLead = ct.lead === '' && fm !== '' && ctText !== '' && (r.frontmatter === null || ct.core === '') ? eol : ct.lead;
  // Text written where there was none gets the canonical separator, not one shaped for no text.
  const separator = r.separator !== null && ct.core === '' && ctText !== '' ? `${eol}${eol}---${eol}${eol}` : r.separator;

  let body: string;
  if (now.timeline === '' && (tlChanged || r.separator === null)) {
    // No timeline (any more): no separator; the page ends as the file ended.
    const trail = r.separator === null && ct.core !== '' ? ct.trail : end;
    body = ctLead + ctText + (ctText === '' ? '' : trail);
  } else if (r.separator !== null) {
    body = ctLead + ctText + ct.trail + separator + tl.lead + tlText + (tlChanged && tl.core === '' ? end : tl.trail);
  } else {
    body = ctLead + ctText + `${eol}${eol}---${eol}${eol}` + tlText + (ct.trail !== '' ? ct.trail : end);
  }
  // Text that was not valid UTF-8 was read as latin1; edited text is Unicode, so write UTF-8.
  const out = encode(fm + body, r.bom, 'utf8');
  // Where the line falls is decided by the text itself: a "---" line in new compiled truth,
  // or an unclosed code fence above the line, would move it. Refuse rather than corrupt.
  const again = parsePage(out, page.relPath);
  if (again.compiledTruth !== now.compiledTruth || again.timeline !== now.timeline) {
    throw new Error(
      `${page.relPath}: the edited page would not read back as edited (a "---" line outside code in the compiled truth, or an unclosed code fence above the timeline, moves the separator); not rendered`,
    );
  }
  return out;
}

/** Title for a page: frontmatter title, else the first "# " heading, else the last slug segment. */
export function pageTitle(page: Pick<ParsedPage, 'frontmatter' | 'compiledTruth' | 'slug'>): string {
  const t = page.frontmatter.title;
  if (typeof t === 'string' && t.trim() !== '') return t.trim();
  const h = /^# +(.+?)\s*#*\s*$/m.exec(page.compiledTruth);
  if (h) return h[1]!;
  return page.slug.split('/').pop() ?? page.slug;
}

/** Tags from frontmatter `tags`: a list, or a comma-separated string. */
export function pageTags(page: Pick<ParsedPage, 'frontmatter'>): string[] {
  const t = page.frontmatter.tags;
  const list = Array.isArray(t) ? t : typeof t === 'string' ? t.split(',') : [];
  return [...new Set(list.filter((x): x is string | number => typeof x === 'string' || typeof x === 'number').map((x) => String(x).trim()).filter((x) => x !== ''))];
}

function decode(bytes: Buffer | string, relPath: string, warnings: string[]): { text: string; bom: boolean; encoding: 'utf8' | 'latin1' } {
  if (typeof bytes === 'string') {
    const bom = bytes.startsWith('\uFEFF');
    return { text: bom ? bytes.slice(1) : bytes, bom, encoding: 'utf8' };
  }
  const bom = bytes.length >= 3 && bytes.subarray(0, 3).equals(BOM_BYTES);
  const body = bom ? bytes.subarray(3) : bytes;
  try {
    return { text: strictUtf8.decode(body), bom, encoding: 'utf8' };
  } catch {
    warnings.push(`${relPath}: not valid UTF-8; read as latin1 so every byte is kept`);
    return { text: body.toString('latin1'), bom, encoding: 'latin1' };
  }
}

function encode(text: string, bom: boolean, encoding: 'utf8' | 'latin1'): Buffer {
  const body = Buffer.from(text, encoding);
  return bom ? Buffer.concat([BOM_BYTES, body]) : body;
}

/** LF endings, no leading blank lines (indentation of the first line kept), no trailing whitespace. */
function normaliseBlock(s: string): string {
  return toLf(s).replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** leading whole blank lines + core + trailing whitespace. */
function splitWs(s: string): { lead: string; core: string; trail: string } {
  const lead = /^(?:[ \t]*\r?\n)*/.exec(s)![0];
  const rest = s.slice(lead.length);
  const trail = /[ \t\r\n]*$/.exec(rest)![0];
  return { lead, core: rest.slice(0, rest.length - trail.length), trail };
}

function innerFrontmatter(raw: string): string {
  // Drop the opening `---` line and the closing `---` line (with its ending, if any).
  const afterOpen = raw.slice(raw.indexOf('\n') + 1);
  return afterOpen.replace(/---(?:\r?\n)?$/, '');
}

function parseFrontmatter(raw: string | null, relPath: string): { value: Record<string, unknown>; warnings: string[] } {
  if (raw === null) return { value: {}, warnings: [] };
  const doc = parseDocument(toLf(innerFrontmatter(raw)), { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const why = doc.errors[0]!.message.split('\n')[0];
    return { value: {}, warnings: [`${relPath}: the frontmatter is not valid YAML (${why}); it is kept verbatim`] };
  }
  const warnings = doc.warnings.map((w) => `${relPath}: frontmatter: ${w.message.split('\n')[0]}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (cause) {
    return { value: {}, warnings: [`${relPath}: the frontmatter cannot be read (${(cause as Error).message}); it is kept verbatim`] };
  }
  if (value === null || value === undefined) return { value: {}, warnings };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { value: {}, warnings: [...warnings, `${relPath}: the frontmatter is not a key: value mapping; it is kept verbatim`] };
  }
  return { value: value as Record<string, unknown>, warnings };
}

function renderFrontmatter(raw: string | null, was: Record<string, unknown>, now: Record<string, unknown>, eol: '\n' | '\r\n'): string {
  if (raw === null && Object.keys(now).length === 0) return '';
  // Edit the original document where it is a mapping, so comments and untouched keys stay.
  const doc = parseDocument(raw === null ? '' : toLf(innerFrontmatter(raw)));
  const editable = doc.errors.length === 0 && isMap(doc.contents);
  let yaml: string;
  if (editable) {
    for (const key of Object.keys(was)) if (!(key in now)) doc.delete(key);
    for (const [key, value] of Object.entries(now)) if (!isDeepStrictEqual(was[key], value)) doc.set(key, value);
    yaml = doc.toString({ lineWidth: 0 });
  } else {
    yaml = Object.keys(now).length === 0 ? '' : new Document(now).toString({ lineWidth: 0 });
  }
  if (yaml.trim() === '{}') yaml = '';
  return withEol(`---\n${yaml}---\n`, eol);
}
