// The import's validation: counts what was stored against what was read, and renders every
// stored page (and sidecar, and file of no page) back from the database to compare it with the
// file, a batch of cards at a time. What it needs of each page comes from the ledger (the
// card's id and the file's digest) and from the database (links, link targets), so its memory
// does not grow with the brain.
import { sql } from 'kysely';
import type { BrainContext } from '../knowledge/context.js';
import type { SpecialFile } from './directory.js';
import { renderSnapshot } from './export.js';
import type { ImportReport } from './import.js';
import { fileDigest, type PageLedger } from './import-ledger.js';
import { sha256 } from './page-content.js';
import type { Sidecar } from './sidecar.js';
import { loadFiles, loadSnapshot } from './snapshot.js';

/**
 * Cards read back and rendered at a time. With 500 the import's peak RSS came in the validation,
 * 60 MB of JavaScript heap over the write phase's (7,500 pages: 382-425 MiB against 314-343 with
 * 100); with statistics (afterWrite) a batch of 100 costs 40 ms, not 120.
 */
const VALIDATE_BATCH = 100;

export async function checkImport(ctx: BrainContext, ledger: PageLedger, unattached: readonly (SpecialFile | Sidecar)[], report: ImportReport): Promise<void> {
  const subject = ctx.subject.name;
  const db = ctx.db.withSchema(subject);
  const check = (path: string, expected: Buffer, bytes: Buffer | undefined): void => {
    report.contentCheck.checked++;
    if (bytes && fileDigest(path, sha256(bytes)).equals(expected)) report.contentCheck.identical++;
    else report.contentCheck.different.push(path);
  };
  const missing = new Set<string>();
  for (let from = 0; from < ledger.size; from += VALIDATE_BATCH) {
    const entries = ledger.slice(from, from + VALIDATE_BATCH);
    const ids = entries.map((e) => e.topicId);
    const snap = await loadSnapshot(ctx.db, subject, ids, { files: 'of-cards' });
    const rendered = new Map(renderSnapshot(snap).files.map((f) => [f.relPath, f.bytes]));
    const cards = new Map(snap.cards.map((c) => [c.id, c]));
    const targets = new Set<string>();
    for (const e of entries) {
      const card = cards.get(e.topicId);
      const page = card?.page;
      // A card this import wrote and no longer finds is named by its id: its path was on its page record.
      check(page?.relPath ?? `(card ${e.topicId}, written by this import, not found)`, e.page, page ? rendered.get(page.relPath) : undefined);
      if (e.sidecar) {
        const file = snap.files.find((f) => f.role === 'sidecar' && f.topicId === e.topicId);
        check(file?.relPath ?? `(the sidecar of ${page?.relPath ?? `card ${e.topicId}`}, not found)`, e.sidecar, file ? rendered.get(file.relPath) : undefined);
        if (file) report.sidecars.stored++;
      }
      if (!card || !page) continue;
      report.pages.stored++;
      report.sidecars.rawSources += card.raw.length;
      const episodeIds = new Set(card.episodes.map((x) => x.id));
      report.timeline.episodes += (page.imported.episodes ?? []).filter((x) => episodeIds.has(x.id)).length;
      for (const to of page.imported.links ?? []) targets.add(to);
    }
    if (ids.length) {
      const [links] = await db
        .selectFrom('links')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('from_topic_id', 'in', ids)
        .where('relation', '=', 'mentions')
        .where('to_subject', '=', subject)
        .execute();
      report.links.stored += Number(links?.n ?? 0);
    }
    if (targets.size) {
      const found = await db.selectFrom('topics').select('slug').where(sql<boolean>`slug = ANY(${[...targets]}::text[])`).execute();
      for (const r of found) targets.delete(r.slug);
      for (const to of targets) missing.add(to);
    }
  }
  const stored = new Map((await loadFiles(ctx.db, subject, { unattached: true })).map((f) => [f.relPath, f]));
  for (const f of unattached) {
    const file = stored.get(f.relPath);
    check(f.relPath, fileDigest(f.relPath, sha256(f.bytes)), file?.bytes);
    if (file?.role === 'sidecar') report.sidecars.stored++;
    if (file?.role === 'special') report.specialFiles.stored++;
  }
  const [log] = await db.selectFrom('gbrain_ingest_log').select((eb) => eb.fn.countAll<number>().as('n')).where('origin', '=', 'log.md').execute();
  report.ingestLog.stored = Number(log?.n ?? 0);
  report.links.missingTargets = [...missing].sort();
  report.ok =
    report.failed.length === 0 &&
    report.pages.stored === report.pages.found &&
    report.links.stored === report.links.distinct &&
    report.timeline.episodes === report.timeline.entries &&
    report.contentCheck.different.length === 0;
}
