// Import: a GBrain directory into one subject, through that subject's own role, so the
// grants and (in personal) the deny-list apply to every row. One transaction per page
// with everything that belongs to it; a page that fails is reported with its path and
// reason and leaves nothing behind. Files unchanged since the last import are skipped,
// so a second run writes nothing at all. Ends with a validation report, including a
// content check: every page is rendered back from the database and compared with the file.
// Pages are read, written and checked a batch at a time; between batches only each page's
// card id and a digest of its file are kept (import-ledger.ts), and what the subject already
// holds is read a batch at a time (import-previous.ts), so the import's memory does not grow
// with the brain.
import { stat } from 'node:fs/promises';
import { sql } from 'kysely';
import { write, type BrainContext } from '../knowledge/context.js';
import { asBrainError, BrainError } from '../knowledge/errors.js';
import { readBrainPages, scanBrainDirectory, type ScannedBrain, type SpecialFile } from './directory.js';
import { isCalendarDate } from './episode-mapping.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kinds.js';
import { checkKindMap } from './kind-map.js';
import type { IngestRecord } from './log.js';
import { sha256 } from './page-content.js';
import { checkImport } from './import-check.js';
import { PageLedger } from './import-ledger.js';
import { previousState, storedFileHashes } from './import-previous.js';
import { PagePlanError, planPage, slugForPage, type PagePlan } from './page-plan.js';
import { writePages, type PageWrite, type PageWritten, type PreviousImport } from './page-writer.js';
import { createLintRun } from '../curation/lint-batches.js';
import { importedDuplicates, type JudgedDuplicate } from '../curation/lint-judgement.js';
import type { ImportedMeta } from './page-content.js';
import type { Sidecar } from './sidecar.js';

/** Pages per transaction on the happy path (see flush). */
const BATCH = 100;
/** Pages read from disk at a time. */
const READ_BATCH = 500;
export interface ImportProgress {
  done: number;
  total: number;
}

export interface ImportOptions {
  kindMap?: KindMap;
  /** Kind of pages at the top of the directory. Default "concept". */
  rootKind?: string;
  /** Recorded in the outbox with every write. */
  reason?: string;
  onProgress?: (p: ImportProgress) => void;
  /**
   * Runs between writing and validating: brings the tables' planner statistics up to date where
   * nothing else does (the embedded brain has no autovacuum; cli/subject.ts). Validation reads
   * the new cards back in batches, and without statistics Postgres planned each batch's
   * timeline read as a scan of every episode: 93 ms a batch at 7,500 pages instead of 19. A
   * failure is a warning: what was written stays, and only validation is slower.
   */
  afterWrite?: () => Promise<unknown>;
}

export interface ImportProblem {
  path: string;
  reason: string;
}

export interface ImportReport {
  subject: string;
  dir: string;
  pages: { found: number; created: number; updated: number; unchanged: number; failed: number; stored: number };
  links: { parsed: number; distinct: number; stored: number; missingTargets: string[] };
  timeline: { entries: number; episodes: number };
  sidecars: { found: number; stored: number; rawSources: number };
  specialFiles: { found: number; stored: number };
  ingestLog: { entries: number; stored: number };
  contentCheck: { checked: number; identical: number; different: string[] };
  /** Files that were not imported (or only partly), with why. */
  failed: ImportProblem[];
  /** Things read with a caveat (invalid YAML kept verbatim, a bad timeline date, ...). */
  warnings: ImportProblem[];
  /**
   * Pages this import created that search before add's judgement calls the same thing as
   * another card (the most likely first, at most 20 shown): reported, never merged.
   */
  possibleDuplicates: { count: number; shown: JudgedDuplicate[] };
  /** True when every file was stored and every one renders back byte for byte. */
  ok: boolean;
  seconds: number;
  /** Where the time went: reading the directory, writing, the statistics after it (afterWrite), validating, and weighing the new pages as duplicates. */
  timings: { read: number; write: number; afterWrite: number; validate: number; duplicates: number };
}

export async function importBrain(ctx: BrainContext, dir: string, opts: ImportOptions = {}): Promise<ImportReport> {
  const started = performance.now();
  const subject = ctx.subject.name;
  const kindMap = opts.kindMap ?? DEFAULT_KIND_MAP;
  const rootKind = opts.rootKind ?? 'concept';
  checkKindMap(kindMap, ctx.kinds, rootKind);
  const isDir = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new BrainError('not_found', `${dir} is not a directory`, 'Pass the GBrain brain directory (the one holding people/, companies/, ...).');

  const brain = await scanBrainDirectory(dir, { kindMap, rootKind });
  const read = performance.now();
  // Problems found while listing and reading: a caveat about a page that was read is a
  // warning; anything else was not imported. Sorted by path at the end, before the failures
  // found while planning and writing, in page order.
  const readFailed: ImportProblem[] = [...brain.problems];
  const failed: ImportProblem[] = [];
  const warnings: ImportProblem[] = [];

  // Only pages whose paths give the same slug can clash; only those have an owner to remember.
  const slugOwner = new Map<string, string | undefined>([...sharedSlugs(brain.pagePaths)].map((s) => [s, undefined]));
  const sidecarBySlug = new Map(brain.sidecars.map((s) => [s.slug, s]));

  const report: ImportReport = {
    subject,
    dir,
    pages: { found: 0, created: 0, updated: 0, unchanged: 0, failed: 0, stored: 0 },
    links: { parsed: 0, distinct: 0, stored: 0, missingTargets: [] },
    timeline: { entries: 0, episodes: 0 },
    sidecars: { found: brain.sidecars.length, stored: 0, rawSources: 0 },
    specialFiles: { found: brain.specials.length, stored: 0 },
    ingestLog: { entries: brain.ingestLog.length, stored: 0 },
    contentCheck: { checked: 0, identical: 0, different: [] },
    failed,
    warnings,
    ok: false,
    seconds: 0,
    possibleDuplicates: { count: 0, shown: [] },
    timings: { read: (read - started) / 1000, write: 0, afterWrite: 0, validate: 0, duplicates: 0 },
  };

  const total = brain.pagePaths.length + brain.specials.length + sidecarsOfNoPage(brain).length;
  let done = 0;
  const tick = (): void => opts.onProgress?.({ done: ++done, total });
  // What the content check needs of each page written or unchanged, and no more.
  const ledger = new PageLedger();
  const usedSidecars = new Set<Sidecar>();

  // Pages are written in batches, each batch one transaction. When a batch fails, its pages
  // are written again one transaction each, so a bad page fails alone and leaves nothing.
  let batch: PageWrite[] = [];
  const created = new Set<number>();
  const record = (w: PageWrite, r: PageWritten): void => {
    ledger.add(r.topicId, w.plan, w.plan.sidecar);
    if (r.created) created.add(r.topicId);
    if (r.created) report.pages.created++;
    else report.pages.updated++;
    tick();
  };
  const flush = async (): Promise<void> => {
    const pending = batch;
    batch = [];
    if (pending.length === 0) return;
    try {
      const written = await write(ctx, { operation: 'import', reason: opts.reason }, (trx) => writePages(trx, subject, pending));
      pending.forEach((w, i) => record(w, written[i]!));
      return;
    } catch (error) {
      if (pending.length === 1) {
        failed.push({ path: pending[0]!.plan.relPath, reason: reasonOf(error, pending[0]!.plan.relPath) });
        report.pages.failed++;
        tick();
        return;
      }
    }
    for (const w of pending) {
      try {
        const [r] = await write(ctx, { operation: 'import', reason: opts.reason }, (trx) => writePages(trx, subject, [w]));
        record(w, r!);
      } catch (error) {
        failed.push({ path: w.plan.relPath, reason: reasonOf(error, w.plan.relPath) });
        report.pages.failed++;
        tick();
      }
    }
  };

  for (let from = 0; from < brain.pagePaths.length; from += READ_BATCH) {
    const paths = brain.pagePaths.slice(from, from + READ_BATCH);
    const { pages, problems } = await readBrainPages(dir, paths, { kindMap, rootKind });
    const readOk = new Set(pages.map((p) => p.relPath));
    for (const p of problems) (readOk.has(p.path) ? warnings : readFailed).push(p);
    report.pages.found += pages.length;
    const plans: PagePlan[] = [];
    for (const page of pages) {
      const sidecar = sidecarBySlug.get(page.slug);
      if (sidecar) usedSidecars.add(sidecar);
      try {
        const plan = planPage(page, sidecar);
        if (slugOwner.has(plan.slug)) {
          const owner = slugOwner.get(plan.slug);
          if (owner) throw new PagePlanError(`${page.relPath}: its slug "${plan.slug}" is already taken by ${owner}`);
          slugOwner.set(plan.slug, page.relPath);
        }
        plans.push(plan);
      } catch (error) {
        if (!(error instanceof PagePlanError)) throw error;
        failed.push({ path: page.relPath, reason: error.message });
        report.pages.failed++;
        tick();
      }
    }
    const known = await previousState(ctx.db, subject, plans);
    for (const plan of plans) {
      for (const w of plan.warnings) warnings.push({ path: plan.relPath, reason: w });
      report.links.parsed += plan.linksParsed;
      report.links.distinct += plan.links.size;
      report.timeline.entries += plan.episodes.length;

      const before = known.pages.get(plan.relPath);
      const topicId = known.topicIds.get(plan.slug);
      const sidecarRow = topicId !== undefined ? known.sidecars.get(topicId) : undefined;
      const unchanged = before !== undefined && before.topic_id === topicId && before.sha256 === plan.sha256 && sidecarRow?.sha256 === plan.sidecar?.sha256;
      if (unchanged) {
        ledger.add(topicId, plan, plan.sidecar);
        report.pages.unchanged++;
        tick();
        continue;
      }
      const prev: PreviousImport = {
        ...(topicId !== undefined ? { topicId } : {}),
        ...(before && before.topic_id === topicId ? { imported: before.imported as ImportedMeta } : {}),
        ...(sidecarRow ? { sidecarPath: sidecarRow.rel_path } : {}),
      };
      batch.push({ plan, prev });
      if (batch.length >= BATCH) await flush();
    }
  }
  await flush();
  // Not needed past here; at 100,000 pages the paths are some 10 MB of the peak to come.
  brain.pagePaths = [];

  // Special files, each on its own (log.md with its ingest records), and sidecars of no page.
  const unattached = [...brain.specials, ...brain.sidecars.filter((s) => !usedSidecars.has(s))];
  const storedHashes = await storedFileHashes(ctx.db, subject, unattached.map((f) => f.relPath));
  for (const special of brain.specials) {
    const log = special.relPath === 'log.md' ? brain.ingestLog : undefined;
    await storeFile(ctx, special, 'special', storedHashes.get(special.relPath), log, opts.reason, failed, warnings);
    tick();
  }
  for (const s of brain.sidecars) {
    if (usedSidecars.has(s)) continue;
    await storeFile(ctx, s, 'sidecar', storedHashes.get(s.relPath), undefined, opts.reason, failed, warnings);
    tick();
  }
  failed.unshift(...readFailed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));

  const written = performance.now();
  report.timings.write = (written - read) / 1000;
  if (opts.afterWrite) {
    try {
      await opts.afterWrite();
    } catch (error) {
      warnings.push({ path: dir, reason: `the tables' statistics could not be brought up to date after writing (${(error as Error).message}); everything was written, and validation may be slower` });
    }
  }
  const settled = performance.now();
  report.timings.afterWrite = (settled - written) / 1000;
  await checkImport(ctx, ledger, unattached, report);
  const validated = performance.now();
  report.timings.validate = (validated - settled) / 1000;
  report.possibleDuplicates = await importedDuplicates(createLintRun(ctx), created);
  report.timings.duplicates = (performance.now() - validated) / 1000;
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

async function storeFile(
  ctx: BrainContext,
  file: SpecialFile | Sidecar,
  role: 'special' | 'sidecar',
  storedSha: string | undefined,
  log: IngestRecord[] | undefined,
  reason: string | undefined,
  failed: ImportProblem[],
  warnings: ImportProblem[],
): Promise<void> {
  const sha = sha256(file.bytes);
  if (storedSha === sha) return;
  try {
    await write(ctx, { operation: 'import', reason }, async (trx) => {
      const t = trx.withSchema(ctx.subject.name);
      const row = { role, topic_id: null, bytes: file.bytes, sha256: sha, fingerprint: null };
      await t
        .insertInto('gbrain_files')
        .values({ rel_path: file.relPath, ...row })
        .onConflict((oc) => oc.column('rel_path').doUpdateSet({ ...row, imported_at: sql`now()` }))
        .execute();
      if (!log) return;
      // log.md changed (or is new): its records are replaced as a whole.
      await t.deleteFrom('gbrain_ingest_log').where('origin', '=', 'log.md').execute();
      const rows = [];
      for (const r of log) {
        if (!isCalendarDate(r.date)) {
          warnings.push({ path: file.relPath, reason: `${file.relPath}: line ${r.line} has the date ${r.date}, which is not a calendar date; no ingest record for it` });
          continue;
        }
        rows.push({
          origin: 'log.md' as const,
          logged_at: r.time ? `${r.date}T${r.time.length === 5 ? `${r.time}:00` : r.time}Z` : `${r.date}T00:00:00Z`,
          date_only: r.time === '',
          source_type: r.sourceType,
          source_ref: r.sourceRef,
          pages_updated: JSON.stringify(r.pagesUpdated),
          summary: r.summary,
          detail: r.detail,
          document_id: null,
          line: r.line,
        });
      }
      if (rows.length) await t.insertInto('gbrain_ingest_log').values(rows).execute();
    });
  } catch (error) {
    failed.push({ path: file.relPath, reason: reasonOf(error, file.relPath) });
  }
}

/** The slugs that more than one page path gives ("a b.md" and "a-b.md"): the only ones that can clash. */
function sharedSlugs(paths: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const path of paths) {
    const slug = slugForPage(path);
    if (seen.has(slug)) shared.add(slug);
    else seen.add(slug);
  }
  return shared;
}

function sidecarsOfNoPage(brain: ScannedBrain): Sidecar[] {
  const pages = new Set(brain.pagePaths);
  return brain.sidecars.filter((s) => !pages.has(`${s.slug}.md`));
}

function reasonOf(error: unknown, path: string): string {
  const e = asBrainError(error, path);
  if (e instanceof BrainError) return `${path}: ${e.message}`;
  return `${path}: ${(e as Error).message}`;
}
