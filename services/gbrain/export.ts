// Export: a subject back into a GBrain directory. An imported card that is unchanged
// since import is written as the original bytes; a changed one is re-rendered with
// renderChangedPage (only the edited pieces change); a card created in claude-brain is
// written in the GBrain layout into its kind's directory, its episodes as timeline lines.
// Sidecars and special files come back byte for byte unless their data changed.
import { readdir } from 'node:fs/promises';
import { posix } from 'node:path';
import { Document } from 'yaml';
import type { BrainContext } from '../knowledge/context.js';
import { BrainError } from '../knowledge/errors.js';
import { writeBrainDirectory } from './directory.js';
import { mergeTimeline } from './episode-mapping.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kinds.js';
import { directoryForKind } from './kind-map.js';
import { fingerprint, pageContent, rawFingerprint } from './page-content.js';
import { parsePage, renderChangedPage } from './page.js';
import { renderSidecar } from './sidecar.js';
import { loadFiles, loadSnapshot, type BrainSnapshot, type CardSnapshot } from './snapshot.js';
import { toLf } from './text.js';

export type FileStatus = 'unchanged' | 'changed' | 'new' | 'verbatim';

export interface RenderedFile {
  relPath: string;
  bytes: Buffer;
  status: FileStatus;
  kind: 'page' | 'sidecar' | 'special';
  /** The card a page or sidecar belongs to. */
  topicId?: number;
}

export interface ExportProblem {
  path: string;
  reason: string;
}

export interface RenderOptions {
  /** Directory ↔ kind map; new cards go to the first directory of their kind. */
  kindMap?: KindMap;
  /**
   * Paths spoken for when a subject is rendered in batches (exportBrain): every imported page's
   * and stored file's, and the new pages' given so far, which this render adds to. Default: the
   * snapshot's own.
   */
  taken?: Set<string>;
}

/** Every file of the snapshot, rendered in memory. Never throws for one bad card: it is a problem, and the rest goes on. */
export function renderSnapshot(snap: BrainSnapshot, opts: RenderOptions = {}): { files: RenderedFile[]; problems: ExportProblem[] } {
  const kindMap = opts.kindMap ?? DEFAULT_KIND_MAP;
  const files: RenderedFile[] = [];
  const problems: ExportProblem[] = [];
  // Paths already spoken for: imported pages and kept files keep theirs; new cards avoid them.
  const taken = opts.taken ?? new Set<string>();
  for (const c of snap.cards) if (c.page) taken.add(c.page.relPath);
  for (const f of snap.files) taken.add(f.relPath);
  const sidecarOf = new Map(snap.files.filter((f) => f.role === 'sidecar' && f.topicId !== null).map((f) => [f.topicId!, f]));

  for (const card of snap.cards) {
    try {
      let pagePath: string;
      if (card.page) {
        pagePath = card.page.relPath;
        files.push({ relPath: pagePath, ...renderImportedPage(card), kind: 'page', topicId: card.id });
      } else {
        pagePath = newPagePath(card, kindMap, taken);
        taken.add(pagePath);
        const { bytes, problem } = renderNewPage(card, pagePath);
        if (problem) problems.push({ path: pagePath, reason: problem });
        files.push({ relPath: pagePath, bytes, status: 'new', kind: 'page', topicId: card.id });
      }
      const sidecar = sidecarOf.get(card.id);
      if (sidecar) {
        const same = rawFingerprint(card.raw) === sidecar.fingerprint;
        const bytes = same ? sidecar.bytes : renderSidecar({ relPath: sidecar.relPath, slug: card.slug, bytes: sidecar.bytes, sources: rawSources(card) });
        files.push({ relPath: sidecar.relPath, bytes, status: same ? 'unchanged' : 'changed', kind: 'sidecar', topicId: card.id });
      } else if (card.raw.length > 0) {
        const relPath = sidecarPathFor(pagePath);
        if (taken.has(relPath)) problems.push({ path: relPath, reason: `${relPath}: another file has this path; the raw data of "${card.slug}" is not exported` });
        else {
          taken.add(relPath);
          files.push({ relPath, bytes: Buffer.from(JSON.stringify({ sources: rawSources(card) }, null, 2) + '\n', 'utf8'), status: 'new', kind: 'sidecar', topicId: card.id });
        }
      }
    } catch (error) {
      problems.push({ path: card.page?.relPath ?? card.slug, reason: `${card.slug}: cannot be exported (${(error as Error).message})` });
    }
  }
  for (const f of snap.files) {
    if (f.role === 'special' || f.topicId === null) files.push({ relPath: f.relPath, bytes: f.bytes, status: 'verbatim', kind: f.role === 'special' ? 'special' : 'sidecar' });
  }
  files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return { files, problems };
}

/** An imported card: the original bytes while its content is as imported, else the edited page. */
export function renderImportedPage(card: CardSnapshot): { bytes: Buffer; status: 'unchanged' | 'changed' } {
  const page = card.page!;
  const content = pageContent(card, page.imported);
  if (fingerprint(content) === page.fingerprint) return { bytes: page.original, status: 'unchanged' };
  const parsed = parsePage(page.original, page.relPath);
  const bytes = renderChangedPage(parsed, { frontmatter: content.frontmatter, compiledTruth: content.compiledTruth, timeline: content.timeline });
  return { bytes, status: 'changed' };
}

/**
 * A card created in claude-brain, in the GBrain layout: frontmatter (title, type, tags,
 * then the card's own keys), compiled truth, and the timeline below "---".
 */
export function renderNewPage(card: CardSnapshot, relPath: string): { bytes: Buffer; problem?: string } {
  const own = JSON.parse(card.frontmatterText) as Record<string, unknown>;
  const fm: Record<string, unknown> = {};
  if (!('title' in own)) fm.title = card.title;
  if (!('type' in own)) fm.type = card.kind;
  Object.assign(fm, own);
  if (card.tags.length > 0) fm.tags = [...card.tags];
  const body = normalise(card.body);
  const timeline = normalise(mergeTimeline(card.timeline, card.episodes));
  const yaml = new Document(fm).toString({ lineWidth: 0 });
  let text = `---\n${yaml}---\n\n`;
  if (body !== '') text += `${body}\n`;
  if (timeline !== '') text += `${body !== '' ? '\n' : ''}---\n\n${timeline}\n`;
  const bytes = Buffer.from(text, 'utf8');
  const again = parsePage(bytes, relPath);
  if (again.compiledTruth !== body || again.timeline !== timeline) {
    return { bytes, problem: `${relPath}: the card's text has a "---" line outside code, which GBrain reads as the timeline separator; exported, but it will not read back as the same card` };
  }
  return { bytes };
}

/** Where a new card's page goes: its slug when that already starts in its kind's directory, else under that directory. */
export function newPagePath(card: Pick<CardSnapshot, 'slug' | 'kind'>, kindMap: KindMap, taken: ReadonlySet<string>): string {
  const dir = directoryForKind(card.kind, kindMap);
  const first = card.slug.split('/')[0]!;
  const inPlace = card.slug.includes('/') && (first === dir || kindMap[first] === card.kind);
  const safe = card.slug
    .split('/')
    .map((seg) => (seg === '.' || seg === '..' ? seg.replace(/\./g, '_') : seg))
    .join('/');
  const base = inPlace ? safe : `${dir}/${safe}`;
  let path = `${base}.md`;
  for (let n = 2; taken.has(path); n++) path = `${base}-${n}.md`;
  return path;
}

/** "people/x.md" → "people/.raw/x.json"; "x.md" → ".raw/x.json". */
export function sidecarPathFor(pagePath: string): string {
  const dir = posix.dirname(pagePath);
  const name = posix.basename(pagePath).replace(/\.md$/i, '');
  return dir === '.' ? `.raw/${name}.json` : `${dir}/.raw/${name}.json`;
}

function rawSources(card: CardSnapshot): Record<string, unknown> {
  return Object.fromEntries(card.raw.map((r) => [r.source, JSON.parse(r.dataText) as unknown]));
}

function normalise(s: string): string {
  return toLf(s).replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

export interface ExportOptions extends RenderOptions {
  /** Write into a directory that is not empty (files of the same name are overwritten). */
  force?: boolean;
  /** Cards per batch (default EXPORT_BATCH); the tests export one card at a time. */
  batch?: number;
}

export interface ExportReport {
  subject: string;
  dir: string;
  pages: { total: number; unchanged: number; changed: number; new: number };
  sidecars: { total: number; unchanged: number; changed: number; new: number };
  specials: number;
  problems: ExportProblem[];
  seconds: number;
}

/**
 * Cards loaded, rendered and written at a time. Loading the whole subject first (every card,
 * episode, original page and sidecar as JavaScript objects) took an export of the scale bench's
 * 30,000 pages to 1.16 GB of RSS; in batches, 230-238 MiB, though 15-20 s slower (an index lookup
 * per episode instead of one scan; docs/performance.md, "The import's peak at 30,000 pages;
 * export in batches; the request log").
 */
const EXPORT_BATCH = 200;

export async function exportBrain(ctx: BrainContext, dir: string, opts: ExportOptions = {}): Promise<ExportReport> {
  const started = performance.now();
  if (!opts.force && (await readdir(dir).catch(() => [])).length > 0) {
    throw new BrainError('invalid_input', `${dir} is not empty`, 'Export into a new or empty directory, or pass --force to overwrite files of the same name.');
  }
  const subject = ctx.subject.name;
  const s = ctx.db.withSchema(subject);
  // Before any card: the cards in slug order (new cards take their paths in that order, as
  // they did rendered all at once), and every path already spoken for, which new pages avoid.
  const ids = (await s.selectFrom('topics').select('id').orderBy('slug').execute()).map((r) => r.id);
  const taken = new Set<string>();
  for (const r of await s.selectFrom('gbrain_pages').select('rel_path').execute()) taken.add(r.rel_path);
  for (const r of await s.selectFrom('gbrain_files').select('rel_path').execute()) taken.add(r.rel_path);

  const written = new Set<string>();
  const tally: Pick<RenderedFile, 'kind' | 'status'>[] = [];
  const problems: ExportProblem[] = [];
  const write = async (rendered: { files: RenderedFile[]; problems: ExportProblem[] }): Promise<void> => {
    problems.push(...rendered.problems);
    for (const f of rendered.files) tally.push({ kind: f.kind, status: f.status });
    await writeBrainDirectory(dir, [], rendered.files.map((f) => ({ relPath: f.relPath, bytes: f.bytes })), [], written);
  };
  const batch = opts.batch ?? EXPORT_BATCH;
  for (let from = 0; from < ids.length; from += batch) {
    const snap = await loadSnapshot(ctx.db, subject, ids.slice(from, from + batch), { files: 'of-cards' });
    await write(renderSnapshot(snap, { ...opts, taken }));
  }
  // The files of no card: special files, and sidecars whose page is gone.
  await write(renderSnapshot({ cards: [], files: await loadFiles(ctx.db, subject, { unattached: true }) }, { ...opts, taken }));
  return { subject, dir, ...countFiles(tally), problems, seconds: (performance.now() - started) / 1000 };
}

export function countFiles(files: readonly Pick<RenderedFile, 'kind' | 'status'>[]): Pick<ExportReport, 'pages' | 'sidecars' | 'specials'> {
  const tally = (kind: 'page' | 'sidecar') => {
    const of = files.filter((f) => f.kind === kind);
    return {
      total: of.length,
      unchanged: of.filter((f) => f.status === 'unchanged' || f.status === 'verbatim').length,
      changed: of.filter((f) => f.status === 'changed').length,
      new: of.filter((f) => f.status === 'new').length,
    };
  };
  return { pages: tally('page'), sidecars: tally('sidecar'), specials: files.filter((f) => f.kind === 'special').length };
}
