// The bootstrap is one idempotent step: re-running it changes nothing, two concurrent
// runs do not corrupt anything, a subject added later is provisioned exactly like the
// first ones, and a failing migration names its file and leaves nothing half-applied.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { bootstrap } from '../db/bootstrap.js';
import { catalogDigest } from '../db/bootstrap-state.js';
import { MIGRATIONS_DIR } from '../db/bootstrap.js';
import { createScratchDatabase } from '../bench/scratch-database.js';
import { SecretStore } from '../db/secrets.js';
import { pgSession } from '../db/sql.js';
import { DENY_LIST, embeddedBrain, KINDS, testSubjects, DEFAULT_SUBJECTS } from './support/brains.js';
import { describeOnBothDatabases, outcome } from './support/both-databases.js';
import { catalogSnapshot } from './support/catalog.js';
import { designedTablePrivileges } from './support/design.js';

describeOnBothDatabases('bootstrap', (brain) => {
  it('re-running it on an up-to-date database changes nothing', async () => {
    const before = await catalogSnapshot(brain().admin, brain().config.rolePrefix);
    const report = await brain().bootstrap();
    expect(report.migrationsApplied).toEqual([]);
    expect(report.rolesCreated).toEqual([]);
    expect(await catalogSnapshot(brain().admin, brain().config.rolePrefix)).toEqual(before);
  });

  it('makes brain.role_prefix() the prefix as a constant, owned by the owner, and the stamp triggers name their sequence', async () => {
    const [fn] = await brain().admin.query<{ value: string; volatile: string; owner: string; config: string[] | null }>(
      `SELECT brain.role_prefix() AS value, p.provolatile::text AS volatile, pg_get_userbyid(p.proowner) AS owner, p.proconfig AS config
         FROM pg_proc p WHERE p.oid = 'brain.role_prefix()'::regprocedure`,
    );
    expect(fn).toEqual({ value: brain().config.rolePrefix, volatile: 'i', owner: brain().config.ownerRole, config: null });
    const stamps = await brain().admin.query<{ tbl: string; args: string }>(
      `SELECT c.relname AS tbl, encode(t.tgargs, 'escape') AS args FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = 'homelab'::regnamespace AND t.tgname LIKE '%\_05\_stamp' ORDER BY 1`,
    );
    expect(stamps.length).toBeGreaterThanOrEqual(8);
    for (const s of stamps) expect(s.args, s.tbl).toContain(`seq=${s.tbl}_id_seq`);
  });

  it('the catalog digest and snapshot do not depend on where rows sit in the catalog', async () => {
    // Revoking and re-granting one default privilege deletes its pg_default_acl row and
    // writes it again at the end of the heap: the same catalog, in another physical order.
    // The embedded brain's start-up skip (db/bootstrap-state.ts) compares this digest.
    const { rolePrefix } = brain().config;
    const digest = () => catalogDigest(brain().admin, rolePrefix);
    const [before, snapshot] = [await digest(), await catalogSnapshot(brain().admin, rolePrefix)];
    const owner = brain().config.ownerRole;
    const audit = brain().config.auditRole;
    const [row] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_default_acl WHERE defaclnamespace = 'brain'::regnamespace");
    expect(row!.n).toBe(1);
    await brain().admin.exec(`ALTER DEFAULT PRIVILEGES FOR ROLE "${owner}" IN SCHEMA brain REVOKE SELECT ON TABLES FROM "${audit}"`);
    await brain().admin.exec(`ALTER DEFAULT PRIVILEGES FOR ROLE "${owner}" IN SCHEMA brain GRANT SELECT ON TABLES TO "${audit}"`);
    expect(await catalogSnapshot(brain().admin, rolePrefix)).toEqual(snapshot);
    expect(await digest()).toBe(before);
  });

  it('a subject added later gets the same tables and grants as the first ones', async () => {
    const next = testSubjects([...DEFAULT_SUBJECTS, 'garden'], brain().config.rolePrefix);
    const report = await brain().bootstrap(next);
    expect(report.rolesCreated).toEqual([`${next.rolePrefix}garden`]);
    expect(report.migrationsApplied.every((m) => m.startsWith('garden:'))).toBe(true);
    const shape = async (schema: string) =>
      (
        await brain().admin.query<{ d: string }>(
          `SELECT c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull AS d
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = $1::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
            UNION ALL SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = $1::regnamespace
            UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = $1::regnamespace) AND NOT tgisinternal
            ORDER BY 1`,
          [schema],
        )
      ).map((r) => r.d.replaceAll(`${schema}.`, 'SCHEMA.'));
    expect(await shape('garden')).toEqual(await shape('homelab'));
    const tables = await brain().admin.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'garden'");
    const wrong: string[] = [];
    for (const role of [...next.subjects.map((s) => s.role), next.auditRole]) {
      for (const schema of ['garden', 'personal', 'homelab']) {
        for (const { t } of tables) {
          for (const p of ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'] as const) {
            const [row] = await brain().admin.query<{ has: boolean }>('SELECT has_table_privilege($1, $2, $3) AS has', [role, `${schema}.${t}`, p]);
            const want = designedTablePrivileges(next, role, schema, t).has(p);
            if (row!.has !== want) wrong.push(`${role} ${p} ${schema}.${t}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    const garden = next.subjects.find((s) => s.name === 'garden')!.role;
    expect(await outcome(() => brain().asRole(garden, (s) => s.query('SELECT * FROM novel.topics')))).toBe('42501');
    expect(await outcome(() => brain().asRole(garden, (s) => s.query('SELECT * FROM garden.topics')))).toBe('ok');
  });

  it('refuses an unknown kind and a kind of the wrong class, for raw SQL as a subject role', async () => {
    const role = brain().config.subjects.find((s) => s.name === 'homelab')!.role;
    expect(await outcome(() => brain().asRole(role, (s) => s.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('a', 'no-such-kind', 'A')")))).toBe('23503');
    expect(await outcome(() => brain().asRole(role, (s) => s.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('a', 'deploy', 'A')")))).toBe('23503');
    expect(await outcome(() => brain().asRole(role, (s) => s.exec("INSERT INTO homelab.episodes (kind, title, occurred_at) VALUES ('tool', 'A', now())")))).toBe('23503');
    expect(await outcome(() => brain().asRole(role, (s) => s.exec("INSERT INTO homelab.topics (slug, kind, title, kind_class) VALUES ('a', 'deploy', 'A', 'episode')")))).toBe('23514');
  });
});

describe('[pglite] bootstrap failures', () => {
  it('a failing migration names its file and the database error, and leaves nothing half-applied', async () => {
    const brain = await embeddedBrain();
    const dir = mkdtempSync(join(tmpdir(), 'brain-migrations-'));
    try {
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      writeFileSync(join(dir, 'subject', '9001_broken.sql'), 'CREATE TABLE half_done (x int);\nSELECT * FROM no_such_table;\n');
      const error = await bootstrap(brain.admin, { subjects: brain.config, kinds: KINDS, denyList: DENY_LIST, secrets: null, migrationsDir: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('migrations/subject/9001_broken.sql');
      expect((error as Error).message).toContain('no_such_table');
      expect((error as { sqlState?: string }).sqlState).toBe('42P01');
      const left = await brain.admin.query("SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
      expect(left).toEqual([]);
      const recorded = await brain.admin.query('SELECT 1 FROM brain.schema_migrations WHERE version = 9001');
      expect(recorded).toEqual([]);
      // An applied migration that was edited afterwards is refused, not re-run.
      writeFileSync(join(dir, 'subject', '9001_broken.sql'), 'SELECT 1;\n');
      await bootstrap(brain.admin, { subjects: brain.config, kinds: KINDS, denyList: DENY_LIST, secrets: null, migrationsDir: dir });
      writeFileSync(join(dir, 'subject', '9001_broken.sql'), 'SELECT 2;\n');
      await expect(bootstrap(brain.admin, { subjects: brain.config, kinds: KINDS, denyList: DENY_LIST, secrets: null, migrationsDir: dir })).rejects.toThrow(/was changed after it was applied/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await brain.close();
    }
  });

  it('refuses to drop a kind that cards still use, with the count', async () => {
    const brain = await embeddedBrain();
    try {
      await brain.admin.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('t/1', 'tool', 'One'), ('t/2', 'tool', 'Two')");
      const fewer = KINDS.filter((k) => k.name !== 'tool');
      await expect(bootstrap(brain.admin, { subjects: brain.config, kinds: fewer, denyList: DENY_LIST, secrets: null })).rejects.toThrow(/no longer lists kind "tool", but 2 topic\(s\) still use it \(homelab: 2\)/);
      const unused = KINDS.filter((k) => k.name !== 'media');
      await bootstrap(brain.admin, { subjects: brain.config, kinds: unused, denyList: DENY_LIST, secrets: null });
      expect(await brain.admin.query("SELECT 1 FROM brain.kinds WHERE name = 'media'")).toEqual([]);
    } finally {
      await brain.close();
    }
  });
});

describe.skipIf(!inject('pgAdminUrl'))('[postgres] concurrent bootstraps', () => {
  it('two bootstraps at once on a fresh database end in the same state as one', async () => {
    const adminUrl = inject('pgAdminUrl')!;
    const scratch = await createScratchDatabase(adminUrl, 'brain_conc');
    const { database, url } = scratch;
    const a = scratch.admin;
    const b = new pg.Client({ connectionString: url.toString() });
    await b.connect();
    const config = testSubjects();
    const secretsDir = mkdtempSync(join(tmpdir(), 'brain-secrets-'));
    const secrets = new SecretStore(secretsDir);
    try {
      const [ra, rb] = await Promise.all([
        bootstrap(pgSession(a), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets }),
        bootstrap(pgSession(b), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets }),
      ]);
      // One of them did the work; the other found it done.
      expect([ra.migrationsApplied.length, rb.migrationsApplied.length].sort((x, y) => x - y)[0]).toBe(0);
      const once = await catalogSnapshot(pgSession(a), config.rolePrefix);
      await bootstrap(pgSession(a), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets });
      expect(await catalogSnapshot(pgSession(a), config.rolePrefix)).toEqual(once);
      const dupes = await a.query('SELECT scope, version FROM brain.schema_migrations GROUP BY 1, 2 HAVING count(*) > 1');
      expect(dupes.rows).toEqual([]);
      // Each subject role logs in with the password the bootstrap stored for it.
      const homelab = config.subjects.find((s) => s.name === 'homelab')!;
      const login = new pg.Client({ host: url.hostname, port: Number(url.port), database, user: homelab.role, password: secrets.read(homelab.role)! });
      await login.connect();
      expect((await login.query('SELECT current_user AS u')).rows[0].u).toBe(homelab.role);
      await login.end();
    } finally {
      await b.end();
      await scratch.drop(config.rolePrefix);
      rmSync(secretsDir, { recursive: true, force: true });
    }
  });
});
