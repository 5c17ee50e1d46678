// `brain subjects add/remove` and `brain init`, run as child processes, on the embedded
// brain and on the real server; then the database is checked directly.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../bench/scratch-database.js';
import { MIGRATIONS_DIR } from '../db/bootstrap.js';
import { EmbeddedDatabase } from '../db/embedded.js';
import { loadMigrations } from '../db/migrate.js';
import { ident } from '../db/sql.js';
import { PACKAGE_ROOT } from '../config/runtime.js';
import { runBrain, scratchConfigDir } from './support/cli.js';


describe('[pglite] brain subjects (CLI, embedded brain)', () => {
  let home: string;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    configDir = scratchConfigDir();
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir };
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  // Two inits (a fresh one is an initdb in WebAssembly): over a minute on a busy 2-core machine.
  it('init creates the brain, and a second init changes nothing', { timeout: 240_000 }, () => {
    const first = runBrain(['init', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const files = loadMigrations(MIGRATIONS_DIR, 'global').length + 4 * loadMigrations(MIGRATIONS_DIR, 'subject').length;
    expect(JSON.parse(first.stdout).migrationsApplied.length).toBe(files);
    const second = runBrain(['init', '--json'], env);
    expect(JSON.parse(second.stdout).migrationsApplied).toEqual([]);
  });

  it('add provisions a subject in one step, and is idempotent', { timeout: 240_000 }, async () => {
    const r = runBrain(['subjects', 'add', 'garden'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('port 7405');
    expect(readFileSync(join(configDir, 'subjects.yaml'), 'utf8')).toMatch(/garden:\n\s+port: 7405/);
    expect(runBrain(['subjects', 'add', 'garden'], env).code).toBe(0);
    const list = JSON.parse(runBrain(['subjects', '--json'], env).stdout) as { name: string }[];
    expect(list.map((s) => s.name)).toEqual(['personal', 'homelab', 'novel', 'book', 'garden']);
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    try {
      await db.pg.exec("INSERT INTO garden.topics (slug, kind, title) VALUES ('plants/fig', 'concept', 'Fig tree')");
      const r2 = await db.pg.query("SELECT has_table_privilege('brain_garden', 'garden.topics', 'DELETE') AS own, has_schema_privilege('brain_garden', 'novel', 'USAGE') AS other");
      expect(r2.rows).toEqual([{ own: true, other: false }]);
    } finally {
      await db.close();
    }
  });

  it('rejects bad names with the rule, and never removes without --archive', () => {
    const bad = runBrain(['subjects', 'add', 'Bad-Name'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('lowercase letters');
    const refused = runBrain(['subjects', 'remove', 'garden'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--archive');
    expect(runBrain(['subjects', 'remove', 'personal', '--archive'], env).stderr).toContain('cannot be removed');
  });

  it('remove --archive keeps the data in a renamed schema and drops the role', { timeout: 240_000 }, async () => {
    const r = runBrain(['subjects', 'remove', 'garden', '--archive'], env);
    expect(r.code, r.stderr).toBe(0);
    const archive = /schema (archived_garden_\d+)/.exec(r.stdout)![1]!;
    expect(readFileSync(join(configDir, 'subjects.yaml'), 'utf8')).not.toContain('garden');
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    try {
      const rows = await db.pg.query(`SELECT slug FROM ${ident(archive)}.topics`);
      expect(rows.rows).toEqual([{ slug: 'plants/fig' }]);
      expect((await db.pg.query("SELECT 1 FROM pg_roles WHERE rolname = 'brain_garden'")).rows).toEqual([]);
    } finally {
      await db.close();
    }
    // The brain still bootstraps cleanly afterwards, and the name can be used again.
    expect(runBrain(['init'], env).code).toBe(0);
    expect(runBrain(['subjects', 'add', 'garden'], env).code).toBe(0);
  });
});

describe('brain subjects add for the compose stack (no embedded brain here)', () => {
  it('add and remove update subjects.yaml and docker-compose.yml, exit 0, and create no embedded brain beside the stack\'s secrets', () => {
    const home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    const configDir = scratchConfigDir();
    try {
      // What brain-up.sh leaves: secrets, a compose file, no .brain/data.
      mkdirSync(join(home, 'secrets'), { mode: 0o700 });
      writeFileSync(join(home, 'secrets', 'brain_personal.password'), 'x\n', { mode: 0o600 });
      copyFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), join(configDir, 'docker-compose.yml'));
      const r = runBrain(['subjects', 'add', 'garden'], { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('./brain-up.sh');
      expect(readFileSync(join(configDir, 'subjects.yaml'), 'utf8')).toMatch(/garden:\n\s+port: 7405/);
      expect(readFileSync(join(configDir, 'docker-compose.yml'), 'utf8')).toContain('brain-garden:');
      expect(existsSync(join(home, 'data'))).toBe(false);
      // Removing follows the files the same way; the shared subject is still refused.
      expect(runBrain(['subjects', 'remove', 'personal', '--archive'], { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir }).stderr).toContain('cannot be removed');
      const removed = runBrain(['subjects', 'remove', 'garden', '--archive'], { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir });
      expect(removed.code, removed.stderr).toBe(0);
      expect(readFileSync(join(configDir, 'subjects.yaml'), 'utf8')).not.toContain('garden');
      expect(readFileSync(join(configDir, 'docker-compose.yml'), 'utf8')).not.toContain('brain-garden');
      expect(existsSync(join(home, 'data'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!inject('pgAdminUrl'))('[postgres] brain init and subjects (CLI, real server)', () => {
  let home: string;
  let configDir: string;
  let env: Record<string, string>;
  let database: string;
  let adminUrl: URL;
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    configDir = scratchConfigDir();
    const prefix = `c${Date.now().toString(36).slice(-5)}_`;
    const file = join(configDir, 'subjects.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^role_prefix: .*$/m, `role_prefix: ${prefix}`));
    scratch = await createScratchDatabase(inject('pgAdminUrl')!, 'brain_cli');
    ({ database, url: adminUrl } = scratch);
    env = {
      BRAIN_HOME: home,
      BRAIN_CONFIG_DIR: configDir,
      BRAIN_DATABASE_URL: `postgres://${adminUrl.host}/${database}`,
      BRAIN_ADMIN_URL: adminUrl.toString(),
    };
  });
  afterAll(async () => {
    await scratch.drop(/role_prefix: (\S+)/.exec(readFileSync(join(configDir, 'subjects.yaml'), 'utf8'))![1]!);
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('init generates one password file per login role, mode 0600, and never prints a password', () => {
    const r = runBrain(['init'], env);
    expect(r.code, r.stderr).toBe(0);
    const secrets = join(home, 'secrets');
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    const prefix = /role_prefix: (\S+)/.exec(readFileSync(join(configDir, 'subjects.yaml'), 'utf8'))![1]!;
    for (const role of ['personal', 'homelab', 'novel', 'book', 'audit'].map((n) => prefix + n)) {
      const file = join(secrets, `${role}.password`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThan(20);
      expect(r.stdout + r.stderr).not.toContain(password);
    }
    expect(r.stdout + r.stderr).not.toContain(adminUrl.password);
  });

  it('a regenerated password file is applied on the next init, and only then', async () => {
    const prefix = /role_prefix: (\S+)/.exec(readFileSync(join(configDir, 'subjects.yaml'), 'utf8'))![1]!;
    const file = join(home, 'secrets', `${prefix}homelab.password`);
    writeFileSync(file, 'a-brand-new-password-from-brain-up\n', { mode: 0o600 });
    const login = async () => {
      const c = new pg.Client({ host: adminUrl.hostname, port: Number(adminUrl.port), database, user: `${prefix}homelab`, password: readFileSync(file, 'utf8').trim() });
      try {
        await c.connect();
        await c.end();
        return 'ok';
      } catch (e) {
        return (e as { code?: string }).code;
      }
    };
    expect(await login()).toBe('28P01');
    expect(runBrain(['init'], env).code).toBe(0);
    expect(await login()).toBe('ok');
  });

  it('add and remove work against the server', async () => {
    expect(runBrain(['subjects', 'add', 'garden'], env).code).toBe(0);
    const prefix = /role_prefix: (\S+)/.exec(readFileSync(join(configDir, 'subjects.yaml'), 'utf8'))![1]!;
    const garden = new pg.Client({ host: adminUrl.hostname, port: Number(adminUrl.port), database, user: `${prefix}garden`, password: readFileSync(join(home, 'secrets', `${prefix}garden.password`), 'utf8').trim() });
    await garden.connect();
    await garden.query("INSERT INTO garden.topics (slug, kind, title) VALUES ('plants/fig', 'concept', 'Fig')");
    await expect(garden.query('SELECT * FROM novel.topics')).rejects.toMatchObject({ code: '42501' });
    await garden.end();
    const r = runBrain(['subjects', 'remove', 'garden', '--archive'], env);
    expect(r.code, r.stderr).toBe(0);
    const archive = /schema (archived_garden_\d+)/.exec(r.stdout)![1]!;
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    expect((await admin.query(`SELECT slug FROM ${ident(archive)}.topics`)).rows).toEqual([{ slug: 'plants/fig' }]);
    await admin.end();
  });

  it('a wrong admin URL fails with a message that does not contain the password', () => {
    const wrong = new URL(adminUrl.toString());
    wrong.password = 'not-the-password-123';
    const r = runBrain(['init'], { ...env, BRAIN_ADMIN_URL: wrong.toString() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('BRAIN_ADMIN_URL');
    expect(r.stderr).not.toContain('not-the-password-123');
  });
});
