// When a start of the embedded brain may skip the bootstrap (db/bootstrap-state.ts,
// db/open.ts), on a real data directory in-process: never when a migration, a grant file or
// the catalog changed, whoever changed it; without even the catalog query when nothing has
// opened the data directory since a clean close that found the catalog as recorded.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import type { RuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { GRANTS_DIR, MIGRATIONS_DIR } from '../../db/bootstrap.js';
import { BOOTSTRAP_STATE_FILE, bootstrapInputs, readBootstrapState } from '../../db/bootstrap-state.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { openAdmin, openSubject, runBootstrap, type BootstrapRun } from '../../db/open.js';
import { newEmbeddedHome, type EmbeddedHome } from '../support/embedded-home.js';

describe('[pglite] the bootstrap check of a start', () => {
  let brain: EmbeddedHome | undefined;
  let home: string;
  let rt: RuntimeConfig;

  /** A start's open and bootstrap check (as brain up does), its marks, then a clean close. */
  async function start(work?: (session: Awaited<ReturnType<typeof openAdmin>>['session']) => Promise<void>): Promise<{ run: BootstrapRun; marks: string[] }> {
    const marks: string[] = [];
    const admin = await openAdmin(rt);
    try {
      const run = await runBootstrap(rt, admin, undefined, { skipIfCurrent: true, mark: (m) => marks.push(m) });
      await work?.(admin.session);
      return { run, marks };
    } finally {
      await admin.close();
    }
  }
  /** Asked as the admin without a bootstrap check, so its close clears the record (nothing vouched for the catalog). */
  const homelabCanRead = async (table: string) => {
    const admin = await openAdmin(rt);
    try {
      const [row] = await admin.session.query<{ ok: boolean }>(`SELECT has_table_privilege('brain_homelab', $1, 'SELECT') AS ok`, [table]);
      return row?.ok;
    } finally {
      await admin.close();
    }
  };

  beforeAll(async () => {
    brain = await newEmbeddedHome('brain-skip-');
    ({ home, rt } = brain);
  }, 180_000);
  afterAll(() => brain?.remove());

  it('after a clean close, the next start skips the bootstrap without querying the catalog', async () => {
    expect(readBootstrapState(rt.dataDir)?.closed?.pgControl).toMatch(/^[0-9a-f]{64}$/);
    const { run, marks } = await start();
    expect(run.skipped).toBe(true);
    expect(marks.at(-1)).toBe('bootstrap skipped (schema, grants, kinds and deny-list as recorded at the last close)');
  }, 60_000);

  it('a grant added by another program that opened the data directory is found and revoked', async () => {
    // PGlite opened directly, as any program could: no claude-brain code runs, nothing is recorded.
    const foreign = await EmbeddedDatabase.open(rt.dataDir);
    await foreign.pg.exec('GRANT SELECT ON personal.topics TO brain_audit; GRANT SELECT ON novel.topics TO brain_homelab');
    await foreign.close();
    const { run, marks } = await start();
    expect(run.skipped).toBeUndefined();
    expect(marks.at(-1)).toMatch(/^bootstrap \(/);
    // That start's close found the catalog as the bootstrap left it: the next one skips again.
    expect((await start()).marks.at(-1)).toContain('as recorded at the last close');
    expect(await homelabCanRead('novel.topics')).toBe(false);
  }, 120_000);

  it('a grant added through the open brain is found at its close, and the next start revokes it', async () => {
    const first = await start((session) => session.exec('GRANT SELECT ON novel.topics TO brain_homelab'));
    expect(first.run.skipped).toBe(true);
    expect(readBootstrapState(rt.dataDir)?.closed).toBeUndefined();
    const { run } = await start();
    expect(run.skipped).toBeUndefined();
    expect(await homelabCanRead('novel.topics')).toBe(false);
  }, 120_000);

  it('a start after a crash (no clean close) queries the catalog, and skips only when it is as recorded', async () => {
    const crashed = await openAdmin(rt);
    await runBootstrap(rt, crashed, undefined, { skipIfCurrent: true });
    // The process dies: PGlite itself is closed, none of the brain's close work runs (no snapshot, no record).
    await crashed.embedded!.pg.close();
    rmSync(join(home, 'data.lock'), { force: true });
    const { run, marks } = await start();
    expect(run.skipped).toBe(true);
    expect(marks.at(-1)).toBe('bootstrap skipped (schema, grants, kinds and deny-list as recorded)');
  }, 120_000);

  it('a one-shot subject command keeps the record; one that ran as the admin after the check does not', async () => {
    await start();
    const conn = await openSubject(rt, 'homelab', undefined, { oneShot: true });
    await sql`SELECT count(*) FROM homelab.topics`.execute(conn.handle.db);
    await conn.close();
    expect((await start()).marks.at(-1)).toContain('as recorded at the last close');

    const admin = await openAdmin(rt);
    admin.dataDir!.oneShot = true;
    await runBootstrap(rt, admin, undefined, { skipIfCurrent: true });
    await admin.session.exec('GRANT SELECT ON novel.topics TO brain_homelab');
    await admin.close();
    const { run } = await start();
    expect(run.skipped).toBeUndefined();
    expect(await homelabCanRead('novel.topics')).toBe(false);
  }, 120_000);

  it('a one-shot command whose start applied a migration that replaced a relation file records the new files, and the next open finds none missing', async () => {
    await start();
    const indexFile = async () => {
      const admin = await openAdmin(rt);
      try {
        const [row] = await admin.session.query<{ path: string }>(`SELECT pg_relation_filepath('homelab.outbox_card_writes_at_idx') AS path`);
        return row!.path;
      } finally {
        await admin.close();
      }
    };
    // As on a brain that predates 0009_overview_counts.sql: 0008's index, and 0009 not applied.
    // The one-shot command's start applies 0009, which drops that index and builds another in a
    // new file; the admin sessions' closes list the old file in the snapshot.
    const admin = await openAdmin(rt);
    await admin.session.exec(`DROP INDEX homelab.topics_archived_kind_idx;
      DROP INDEX homelab.outbox_card_writes_at_idx;
      CREATE INDEX outbox_card_writes_at_idx ON homelab.outbox (at) WHERE table_name IN ('topics', 'episodes');
      DELETE FROM brain.schema_migrations WHERE scope = 'homelab' AND version = 9`);
    await admin.close();
    const before = await indexFile();
    const conn = await openSubject(rt, 'homelab', undefined, { oneShot: true });
    await sql`SELECT count(*) FROM homelab.topics`.execute(conn.handle.db);
    await conn.close();
    // Opening checks every file the last close recorded: the old one, listed again, was "gone".
    expect(await indexFile()).not.toBe(before);
    const { run } = await start();
    expect(run.skipped).toBe(true);
  }, 120_000);

  it('a changed migration or grant file changes the inputs, so the start runs the bootstrap', () => {
    const work = mkdtempSync(join(tmpdir(), 'brain-inputs-'));
    try {
      const migrations = join(work, 'migrations');
      const grants = join(work, 'grants');
      cpSync(MIGRATIONS_DIR, migrations, { recursive: true });
      cpSync(GRANTS_DIR, grants, { recursive: true });
      const opts = { subjects: loadSubjects(rt.subjectsFile), kinds: loadKinds(rt.kindsFile), denyList: loadDenyList(rt.denyListFile), secrets: null };
      const inputs = () => bootstrapInputs({ ...opts, migrationsDir: migrations, grantsDir: grants });
      const before = inputs();
      expect(bootstrapInputs({ ...opts, migrationsDir: MIGRATIONS_DIR, grantsDir: GRANTS_DIR })).toBe(before);
      writeFileSync(join(grants, 'subject.sql'), '-- changed\n', { flag: 'a' });
      const grantChanged = inputs();
      expect(grantChanged).not.toBe(before);
      writeFileSync(join(migrations, 'subject', '9999_new.sql'), 'SELECT 1;\n');
      expect(inputs()).not.toBe(grantChanged);
      // The state file's inputs are what a start compares: another digest there means a bootstrap.
      expect(readBootstrapState(rt.dataDir)?.inputs).toBe(before);
      expect(BOOTSTRAP_STATE_FILE).toBe('claude-brain-bootstrap.json');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
