// The embedded brain's autovacuum (db/embedded-maintenance.ts) on a real PGlite: what it
// analyses and vacuums and when, that keyword search plans with what it leaves behind, and
// how the page cache is sized from the data directory.
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../db/bootstrap.js';
import { PGlite } from '@electric-sql/pglite';
import { cacheSizeFor, EmbeddedDatabase, SHARED_BUFFERS_MB, walKeepMb, walSegmentMbOf, NEW_BRAIN_WAL_SEGMENT_MB } from '../db/embedded.js';
import { maintainEmbedded, maintenanceFor, startEmbeddedMaintenance, type TableActivity } from '../db/embedded-maintenance.js';
import { pgliteSession } from '../db/sql.js';
import { openEmbeddedSubjectDb } from '../db/subject-db.js';
import { createContext } from '../services/knowledge/context.js';
import { rankedSearch } from '../services/search/search.js';
import { DENY_LIST, KINDS, testSubjects } from './support/brains.js';

describe('embedded maintenance', () => {
  const config = testSubjects(['personal', 'homelab']);
  let embedded: EmbeddedDatabase;
  beforeAll(async () => {
    embedded = await EmbeddedDatabase.open();
    await bootstrap(pgliteSession(embedded.pg), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets: null });
  });
  afterAll(() => embedded.close());

  it('analyses the tables that changed, and then leaves them alone', async () => {
    await embedded.pg.exec(
      `INSERT INTO homelab.topics (slug, kind, title, body)
       SELECT 'note/' || g, 'concept', 'Note ' || g, 'Server rack notes, card ' || g || '.' FROM generate_series(1, 700) g`,
    );
    const first = await maintainEmbedded(embedded);
    expect(first.find((s) => s.table === 'homelab.topics')?.action).toBe('analyze');
    expect(first.every((s) => s.ms >= 0)).toBe(true);
    const stats = await embedded.pg.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = 'homelab' AND tablename = 'topics' AND attname = 'search' AND most_common_elems IS NOT NULL",
    );
    expect(stats.rows[0]!.n).toBe(1);
    // Nothing changed since: nothing to do.
    expect(await maintainEmbedded(embedded)).toEqual([]);
    // A few edits stay under the threshold (50 + 10% of the rows)...
    await embedded.pg.exec("UPDATE homelab.topics SET body = body || ' Edited.' WHERE id IN (SELECT id FROM homelab.topics ORDER BY id LIMIT 20)");
    expect((await maintainEmbedded(embedded)).map((s) => s.table)).not.toContain('homelab.topics');
    // ...more do not, and so many dead rows call for a VACUUM.
    await embedded.pg.exec("UPDATE homelab.topics SET body = body || ' Again.' WHERE id IN (SELECT id FROM homelab.topics ORDER BY id LIMIT 300)");
    const again = await maintainEmbedded(embedded);
    expect(again.find((s) => s.table === 'homelab.topics')?.action).toBe('vacuum analyze');
  });

  it('leaves keyword search statistics to plan with', async () => {
    const homelab = config.subjects.find((s) => s.name === 'homelab')!;
    const handle = openEmbeddedSubjectDb(embedded, homelab);
    try {
      const ctx = await createContext(homelab, handle.db);
      const r = await rankedSearch(ctx, { query: 'server rack', mode: 'keyword', subject: 'homelab' });
      expect(r.keywordPlan?.narrowed.has('homelab.topics')).toBe(true);
      expect(r.keyword.length).toBeGreaterThan(0);
    } finally {
      await handle.close();
    }
  });

  it('runs on a timer and on demand, and stops cleanly', async () => {
    const seen: string[] = [];
    const loop = startEmbeddedMaintenance(embedded, { intervalMs: 3_600_000, onSteps: (steps) => seen.push(...steps.map((s) => s.table)) });
    await embedded.pg.exec(
      `INSERT INTO personal.topics (slug, kind, title, body)
       SELECT 'note/' || g, 'concept', 'Note ' || g, 'A personal note, number ' || g || '.' FROM generate_series(1, 200) g`,
    );
    const steps = await loop.runNow();
    // The first pass takes the tables whose size moved since their statistics (personal.topics,
    // never analysed), not those analysed at their present size (homelab.topics) or empty ones.
    expect(steps.map((s) => s.table)).toContain('personal.topics');
    expect(steps.map((s) => s.table)).not.toContain('homelab.topics');
    expect(steps.map((s) => s.table)).not.toContain('homelab.episodes');
    expect(await loop.runNow()).toEqual([]); // the next one only what changed: nothing
    await loop.stop();
    expect(seen).toContain('personal.topics');
    expect(await loop.runNow()).toEqual([]); // stopped: does nothing
  });
});

describe('maintenance thresholds', () => {
  const table = (t: Partial<TableActivity>): TableActivity => ({
    schema: 's', table: 't', reltuples: 10_000, liveRows: 10_000, deadRows: 0, modifiedSinceAnalyze: 0, insertedSinceVacuum: 0, hasStatistics: true, pagesAtStatistics: 1_000, pages: 1_000, ...t,
  });
  it('follows autovacuum: analyse past 50 + 10% changed rows, vacuum past 50 + 20% dead or 1000 + 20% inserted', () => {
    expect(maintenanceFor(table({}))).toBeUndefined();
    expect(maintenanceFor(table({ modifiedSinceAnalyze: 1_050 }))).toBeUndefined();
    expect(maintenanceFor(table({ modifiedSinceAnalyze: 1_051 }))).toBe('analyze');
    expect(maintenanceFor(table({ deadRows: 2_051 }))).toBe('vacuum analyze');
    expect(maintenanceFor(table({ insertedSinceVacuum: 3_001 }))).toBe('vacuum analyze');
    expect(maintenanceFor(table({ hasStatistics: false }))).toBe('analyze');
    expect(maintenanceFor(table({ hasStatistics: false, liveRows: 0, reltuples: -1 }))).toBeUndefined();
    expect(maintenanceFor(table({ deadRows: 2_051 }), true)).toBe('vacuum analyze');
  });

  it('on the first pass after opening (PGlite forgot its counters), goes by how far the size moved since the statistics', () => {
    // As big as when last analysed: left alone, whatever its size.
    expect(maintenanceFor(table({}), true)).toBeUndefined();
    expect(maintenanceFor(table({ pages: 1_108 }), true)).toBeUndefined();
    // Grown or shrunk past 8 pages + 10%: analysed; grown past 8 + 20% (another process imported into it): vacuumed too.
    expect(maintenanceFor(table({ pages: 1_109 }), true)).toBe('analyze');
    expect(maintenanceFor(table({ pages: 891 }), true)).toBe('analyze');
    expect(maintenanceFor(table({ pages: 1_209 }), true)).toBe('vacuum analyze');
    expect(maintenanceFor(table({ pagesAtStatistics: 0, pages: 600, hasStatistics: false }), true)).toBe('vacuum analyze');
    // Rows (a page of them) but never analysed: analysed, though the counters now say no rows.
    expect(maintenanceFor(table({ pagesAtStatistics: 0, pages: 1, hasStatistics: false, liveRows: 0 }), true)).toBe('analyze');
    expect(maintenanceFor(table({ pagesAtStatistics: 0, pages: 0, hasStatistics: false, liveRows: 0, reltuples: -1 }), true)).toBeUndefined();
    // Only the first pass: later, this process's own counters say what changed.
    expect(maintenanceFor(table({ pages: 1_209 }))).toBeUndefined();
  });
});

describe('embedded page cache size', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brain-cache-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is half the relation files, between the bounds', () => {
    expect(cacheSizeFor(undefined)).toBe(SHARED_BUFFERS_MB.min);
    expect(cacheSizeFor(join(dir, 'missing'))).toBe(SHARED_BUFFERS_MB.min);
    mkdirSync(join(dir, 'base', '5'), { recursive: true });
    writeFileSync(join(dir, 'base', '5', 'a'), '');
    truncateSync(join(dir, 'base', '5', 'a'), 600 * 2 ** 20); // sparse: no real disk used
    expect(cacheSizeFor(dir)).toBe(300);
    truncateSync(join(dir, 'base', '5', 'a'), 4 * 2 ** 30);
    expect(cacheSizeFor(dir)).toBe(SHARED_BUFFERS_MB.max);
  });
});

describe('embedded write-ahead log', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brain-wal-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const walBytes = (): number => readdirSync(join(dir, 'pg_wal')).filter((f) => /^[0-9A-F]{24}$/.test(f)).reduce((n, f) => n + statSync(join(dir, 'pg_wal', f)).size, 0);

  it('is checkpointed once enough was written since the last checkpoint, and kept small at close', async () => {
    // No timer: the test calls the check itself, with a small limit, on a data directory.
    const db = await EmbeddedDatabase.open(dir, { sharedBuffersMb: 16, checkpointCheckMs: 3_600_000 });
    try {
      const redo = async () => (await db.pg.query<{ redo: string }>('SELECT redo_lsn::text AS redo FROM pg_control_checkpoint()')).rows[0]!.redo;
      await db.pg.exec(`CREATE TABLE filler (x text); INSERT INTO filler SELECT repeat(md5(g::text), 30) FROM generate_series(1, 20000) g`);
      const before = await redo();
      expect(await db.checkpointIfDue(4 * 2 ** 20)).toBe(true);
      const after = await redo();
      expect(after).not.toBe(before);
      // Nothing written since: no checkpoint.
      expect(await db.checkpointIfDue(4 * 2 ** 20)).toBe(false);
      expect(await redo()).toBe(after);
      // Past the segments Postgres keeps: 160 MB more of WAL, checkpointed as it goes.
      for (let i = 0; i < 8; i++) {
        await db.pg.exec(`INSERT INTO filler SELECT repeat(md5(g::text), 30) FROM generate_series(1, 20000) g`);
        await db.checkpointIfDue();
      }
      expect(walBytes()).toBeLessThanOrEqual((walKeepMb(NEW_BRAIN_WAL_SEGMENT_MB).maxMb + 32) * 2 ** 20);
    } finally {
      await db.close();
    }
    // A new brain's segments are 1 MB, so a closed brain keeps 2 MB of WAL, not 32.
    expect(walSegmentMbOf(dir)).toBe(NEW_BRAIN_WAL_SEGMENT_MB);
    expect(walBytes()).toBeGreaterThan(0);
    expect(walBytes()).toBeLessThanOrEqual(walKeepMb(NEW_BRAIN_WAL_SEGMENT_MB).maxMb * 2 ** 20);
  });

  it('opens a brain made with 16 MB segments (before 2 December 2026) with that size\'s bounds', async () => {
    const old = mkdtempSync(join(tmpdir(), 'brain-wal16-'));
    try {
      // What initdb made by default: no --wal-segsize.
      const made = await PGlite.create(old);
      await made.close();
      expect(walSegmentMbOf(old)).toBe(16);
      // min_wal_size under two segments would refuse to start; the brain passes 32 MB here.
      const db = await EmbeddedDatabase.open(old, { sharedBuffersMb: 16, checkpointCheckMs: 3_600_000 });
      try {
        const { rows } = await db.pg.query<{ seg: string; min: string }>(`SELECT current_setting('wal_segment_size') AS seg, current_setting('min_wal_size') AS min`);
        expect(rows).toEqual([{ seg: '16MB', min: '32MB' }]);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
