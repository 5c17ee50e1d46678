// Reading a GBrain wiki directory into pages, special files and sidecars, and writing them
// back. A bad file becomes a problem in the result, never an exception: one broken page
// must not stop the import of seven thousand others.
import { readFile as readFileCb, writeFile as writeFileCb } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { kindForPath, DEFAULT_KIND_MAP, UnknownDirectoryError, type KindMap } from './kinds.js';
import { parseLog, type IngestRecord } from './log.js';
import { parsePage, renderChangedPage, slugForPath, type ParsedPage } from './page.js';
import { parseSidecar, renderSidecar, type Sidecar } from './sidecar.js';

// The callback readFile/writeFile, promisified: on Node 20 they are two to three times
// faster than fs/promises for thousands of small files (no FileHandle per file).
const readFile = promisify(readFileCb);
const writeFile = promisify(writeFileCb);

/**
 * Files kept verbatim rather than imported as pages (GBrain's import skips them too), at
 * any depth; the root log.md is also read into ingest records.
 */
export const SPECIAL_FILE_NAMES: readonly string[] = ['index.md', 'log.md', 'schema.md', 'README.md'];

export interface BrainPage extends ParsedPage {
  readonly kind: string;
}

export interface SpecialFile {
  /** POSIX path inside the brain, e.g. "index.md". */
  readonly relPath: string;
  readonly bytes: Buffer;
}

export interface BrainProblem {
  /** POSIX path inside the brain of the file or directory. */
  readonly path: string;
  readonly reason: string;
}

export interface BrainDirectory {
  pages: BrainPage[];
  specials: SpecialFile[];
  sidecars: Sidecar[];
  /** Entries of the root log.md ([] without one). */
  ingestLog: IngestRecord[];
  problems: BrainProblem[];
}

/**
 * A brain directory listed but its pages not read yet (import reads them a batch at a time, so
 * its memory does not grow with the brain): the page paths, sorted; the special files and the
 * sidecars, read (few and small); and the problems found so far.
 */
export interface ScannedBrain {
  pagePaths: string[];
  specials: SpecialFile[];
  sidecars: Sidecar[];
  ingestLog: IngestRecord[];
  problems: BrainProblem[];
}

export interface ReadBrainOptions {
  /** Top directory → kind; replaces the default map (spread DEFAULT_KIND_MAP to extend it). */
  kindMap?: KindMap;
  /** Kind of pages directly at the root. Default "concept". */
  rootKind?: string;
}

/** Every page, special file and sidecar of the directory, read into memory. */
export async function readBrainDirectory(dir: string, opts: ReadBrainOptions = {}): Promise<BrainDirectory> {
  const scanned = await scanBrainDirectory(dir, opts);
  const { pages, problems } = await readBrainPages(dir, scanned.pagePaths, opts);
  return { ...scanned, pages, problems: byPathOf([...scanned.problems, ...problems]) };
}

// Thousands of files read at once would run out of file descriptors.
const READS_AT_ONCE = 32;

async function readOrProblem(dir: string, rel: string, slot: ReturnType<typeof limiter>, problem: (path: string, reason: string) => void): Promise<Buffer | null> {
  try {
    return await slot(() => readFile(join(dir, rel)));
  } catch (cause) {
    problem(rel, `${rel}: cannot be read (${(cause as NodeJS.ErrnoException).code ?? cause})`);
    return null;
  }
}

/** Lists the directory: page paths, special files and sidecars (read), problems; no page is read. */
export async function scanBrainDirectory(dir: string, opts: ReadBrainOptions = {}): Promise<ScannedBrain> {
  const kindMap = opts.kindMap ?? DEFAULT_KIND_MAP;
  const rootKind = opts.rootKind ?? 'concept';
  const out: ScannedBrain = { pagePaths: [], specials: [], sidecars: [], ingestLog: [], problems: [] };
  const problem = (path: string, reason: string): void => void out.problems.push({ path, reason });
  const slot = limiter(READS_AT_ONCE);
  const read = (rel: string) => readOrProblem(dir, rel, slot, problem);

  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch (cause) {
      problem(rel || '.', `${rel || dir}: cannot list the directory (${(cause as NodeJS.ErrnoException).code ?? cause})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const tasks: Promise<void>[] = [];
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.name.startsWith('.')) {
        if (e.name === '.raw' && e.isDirectory()) tasks.push(readSidecars(path));
        continue; // hidden: .git, .obsidian, .DS_Store...
      }
      if (e.isDirectory()) {
        if (rel === '') {
          try {
            kindForPath(`${e.name}/x.md`, kindMap, rootKind);
          } catch (err) {
            if (!(err instanceof UnknownDirectoryError)) throw err;
            problem(path, `${err.message}; its files were not read`);
            continue;
          }
        }
        tasks.push(walk(path));
      } else if (!e.isFile()) {
        problem(path, `${path}: not a regular file or directory (symlink?); skipped`);
      } else if (SPECIAL_FILE_NAMES.includes(e.name)) {
        tasks.push(readSpecial(path));
      } else if (e.name.endsWith('.md')) {
        out.pagePaths.push(path);
      } else {
        problem(path, `${path}: not a markdown page (.md) or a .raw/ sidecar; not imported`);
      }
    }
    await Promise.all(tasks);
  }

  async function readSpecial(path: string): Promise<void> {
    const bytes = await read(path);
    if (!bytes) return;
    out.specials.push({ relPath: path, bytes });
    if (path === 'log.md') out.ingestLog = parseLog(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  }

  async function readSidecars(rawDir: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(join(dir, rawDir), { withFileTypes: true });
    } catch (cause) {
      problem(rawDir, `${rawDir}: cannot list the directory (${(cause as NodeJS.ErrnoException).code ?? cause})`);
      return;
    }
    await Promise.all(
      entries.map(async (e) => {
        const path = `${rawDir}/${e.name}`;
        if (e.name.startsWith('.')) return;
        if (!e.isFile() || !e.name.endsWith('.json')) {
          problem(path, `${path}: a .raw/ directory holds only <page>.json sidecars; skipped`);
          return;
        }
        const bytes = await read(path);
        if (!bytes) return;
        const { sidecar, problems } = parseSidecar(bytes, path);
        for (const p of problems) problem(path, p);
        out.sidecars.push(sidecar);
      }),
    );
  }

  await walk('');
  // Parallel listings finish in any order; sort so the result does not depend on timing.
  out.pagePaths.sort();
  out.specials.sort(byPath);
  out.sidecars.sort(byPath);
  const slugs = new Set(out.pagePaths.map(slugForPath));
  for (const s of out.sidecars) {
    if (!slugs.has(s.slug)) problem(s.relPath, `${s.relPath}: sidecar for "${s.slug}", which is not a page; kept, but its raw data has no page`);
  }
  out.problems = byPathOf(out.problems);
  return out;
}

/**
 * Reads and parses the pages at `paths` (from scanBrainDirectory), in their order. A page that
 * cannot be read is a problem and missing from `pages`; a page read with a caveat is in both.
 */
export async function readBrainPages(dir: string, paths: readonly string[], opts: ReadBrainOptions = {}): Promise<{ pages: BrainPage[]; problems: BrainProblem[] }> {
  const kindMap = opts.kindMap ?? DEFAULT_KIND_MAP;
  const rootKind = opts.rootKind ?? 'concept';
  const problems: BrainProblem[] = [];
  const problem = (path: string, reason: string): void => void problems.push({ path, reason });
  const slot = limiter(READS_AT_ONCE);
  const read = await Promise.all(paths.map((path) => readOrProblem(dir, path, slot, problem)));
  const pages: BrainPage[] = [];
  read.forEach((bytes, i) => {
    if (!bytes) return;
    const path = paths[i]!;
    const page = parsePage(bytes, path);
    for (const w of page.warnings) problem(path, w);
    pages.push({ ...page, kind: kindForPath(path, kindMap, rootKind) });
  });
  return { pages, problems };
}

const byPath = <T extends { relPath: string }>(a: T, b: T): number => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0);
const byPathOf = (problems: BrainProblem[]): BrainProblem[] => problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/**
 * Writes pages (unchanged pages byte for byte, edited ones re-rendered), special files and
 * sidecars under `dir`, creating directories as needed. Existing files are overwritten.
 * `written`: the paths earlier calls wrote into the same directory (an export writes in
 * batches); a path given again is refused as within one call, and this call's are added.
 */
export async function writeBrainDirectory(
  dir: string,
  pages: readonly ParsedPage[],
  specials: readonly SpecialFile[] = [],
  sidecars: readonly Sidecar[] = [],
  written: Set<string> = new Set(),
): Promise<void> {
  const files = new Map<string, () => Buffer>();
  const add = (relPath: string, render: () => Buffer): void => {
    const safe = checkRelPath(relPath);
    if (written.has(safe)) throw new Error(`${safe}: given twice to writeBrainDirectory; each file is written once`);
    written.add(safe);
    files.set(safe, render);
  };
  for (const p of pages) add(p.relPath, () => renderChangedPage(p));
  for (const s of specials) add(s.relPath, () => s.bytes);
  for (const s of sidecars) add(s.relPath, () => renderSidecar(s));

  const dirs = new Set([...files.keys()].map((f) => posix.dirname(f)).filter((d) => d !== '.'));
  // Parents first; mkdir -p makes the order safe anyway, sorting just avoids repeated work.
  for (const d of [...dirs].sort()) await mkdir(join(dir, d), { recursive: true });
  await mkdir(dir, { recursive: true });

  const queue = [...files.entries()];
  // A bounded number of writes at a time: thousands at once run out of file descriptors.
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [rel, render] = next;
      try {
        await writeFile(join(dir, rel), render());
      } catch (cause) {
        throw new Error(`${rel}: cannot be written (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, { cause });
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Runs at most `n` of the given tasks at a time. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    // A finishing task hands its slot straight to a waiter, so the count never overshoots.
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** A relative POSIX path that stays inside the brain; throws naming the path otherwise. */
function checkRelPath(relPath: string): string {
  const p = relPath.replace(/\\/g, '/');
  if (p === '' || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split('/').some((seg) => seg === '..' || seg === '.' || seg === '')) {
    throw new Error(`${relPath}: not a relative path inside the brain directory; refusing to write it`);
  }
  return p;
}
