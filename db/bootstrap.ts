// The bootstrap: one idempotent step, safe to run on every start. Under an advisory lock
// it provisions roles, schemas, extensions, migrations, the kind vocabulary and grants.
// Re-running it on an up-to-date database changes nothing.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DenyList } from '../config/deny-list.js';
import { PACKAGE_ROOT } from '../config/package.js';
import type { Kind } from '../config/kinds.js';
import type { Subject, SubjectsConfig } from '../config/subjects.js';
import { ConfigError } from '../config/subjects.js';
import { applyMigrations, loadMigrations, MIGRATIONS_TABLE, type Migration } from './migrate.js';
import { ident, inTransaction, literal, sqlState, type SqlSession } from './sql.js';
import type { SecretStore } from './secrets.js';
import { syncDenyList } from './sync-deny-list.js';

/** Where the SQL lives: in the package, whether this runs from the sources, dist/ or the bundle. */
export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'migrations');
export const GRANTS_DIR = join(PACKAGE_ROOT, 'db', 'grants');

const LOCK_KEY = "hashtext('claude-brain:bootstrap')";
const EXTENSIONS = ['vector', 'pg_trgm'] as const;
export const SHARED_SCHEMAS = ['brain', 'brain_ext', 'brain_private'] as const;

export interface BootstrapOptions {
  subjects: SubjectsConfig;
  kinds: readonly Kind[];
  denyList: DenyList;
  /**
   * Server mode: subject and audit roles log in with passwords kept in this store.
   * Embedded mode (PGlite): null; roles are NOLOGIN and reached with SET LOCAL ROLE.
   */
  secrets: SecretStore | null;
  migrationsDir?: string;
  /** How long to wait for another bootstrap's lock before giving up (default 5 minutes). */
  lockWaitMs?: number;
  /** Where the bootstrap says it is waiting for its lock, and what it could not harden (default: stderr). */
  onLockWait?: (message: string) => void;
}

export interface BootstrapReport {
  features: string[];
  rolesCreated: string[];
  migrationsApplied: string[];
  migrationsSkipped: string[];
  /** Hardening the admin connection could not apply (it is not a superuser), said once per run. */
  warnings?: string[];
}

export const DEFAULT_LOCK_WAIT_MS = 5 * 60_000;

/**
 * Settings every app role logs in with (server mode; ALTER ROLE ... SET, re-asserted on every
 * bootstrap). They bound what an accident or a stuck client costs the other subjects: a
 * statement that waits for a lock, runs away, or a transaction left open. They are defaults,
 * not walls: a role may SET them in its own session (docs/isolation.md, Availability). PGlite
 * applies no role settings under SET LOCAL ROLE and has one session, so none of this applies there.
 */
export const APP_ROLE_SETTINGS: Readonly<Record<string, string>> = {
  lock_timeout: '10s',
  statement_timeout: '5min',
  idle_in_transaction_session_timeout: '15min',
};

export async function bootstrap(session: SqlSession, opts: BootstrapOptions): Promise<BootstrapReport> {
  const dir = opts.migrationsDir ?? MIGRATIONS_DIR;
  const global = loadMigrations(dir, 'global');
  const perSubject = loadMigrations(dir, 'subject');
  const report: BootstrapReport = { features: [], rolesCreated: [], migrationsApplied: [], migrationsSkipped: [] };
  await takeBootstrapLock(session, opts);
  try {
    await ensureRoles(session, opts, report);
    const features = await ensureSharedSchemas(session, opts.subjects);
    report.features = [...features].sort();
    await migrate(session, opts.subjects.ownerRole, 'global', 'brain', global, features, report);
    if (opts.secrets) await syncPasswords(session, opts.subjects, opts.secrets);
    for (const subject of opts.subjects.subjects) {
      await ensureSubjectSchema(session, opts.subjects, subject);
      await migrate(session, opts.subjects.ownerRole, subject.name, subject.name, perSubject, features, report);
    }
    if (opts.secrets === null) await ensurePageInspect(session);
    await syncSettings(session, opts.subjects);
    await syncKinds(session, opts.subjects, opts.kinds);
    await syncDenyList(session, opts.denyList);
    await applyGrants(session, opts.subjects);
    const unhardened = await hardeningLeft(session);
    if (unhardened) {
      report.warnings = [unhardened];
      (opts.onLockWait ?? toStderr)(`warning: ${unhardened}`);
    }
  } finally {
    await session.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`);
  }
  return report;
}

function toStderr(message: string): void {
  process.stderr.write(`claude-brain: ${message}\n`);
}

/** Who holds the bootstrap's advisory lock, as far as this connection may see. */
async function lockHolder(session: SqlSession): Promise<string> {
  const rows = await session.query<{ pid: number; usename: string | null; app: string | null; addr: string | null; state: string | null; secs: number | null }>(
    `SELECT a.pid, a.usename::text AS usename, a.application_name AS app, a.client_addr::text AS addr, a.state,
            extract(epoch FROM now() - coalesce(a.xact_start, a.backend_start))::int AS secs
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid::text::bigint = ((${LOCK_KEY})::bigint >> 32) & 4294967295
        AND l.objid::text::bigint = (${LOCK_KEY})::bigint & 4294967295
        AND l.objsubid = 1 AND l.pid <> pg_backend_pid()`,
  );
  const h = rows[0];
  if (!h) return 'another session';
  const who = [h.usename && `user ${h.usename}`, h.app && `application "${h.app}"`, h.addr && `from ${h.addr}`, h.state && `${h.state}`, h.secs !== null && `for ${h.secs} s`]
    .filter(Boolean)
    .join(', ');
  return `session ${h.pid} (${who})`;
}

/**
 * Takes the bootstrap's advisory lock, waiting for another bootstrap (brain init, brain up,
 * brain subjects) that holds it: says so at once, again every 30 s, and gives up after
 * opts.lockWaitMs naming the holder, instead of hanging silently.
 */
async function takeBootstrapLock(session: SqlSession, opts: Pick<BootstrapOptions, 'lockWaitMs' | 'onLockWait'>): Promise<void> {
  const waitMs = opts.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const say = opts.onLockWait ?? toStderr;
  const started = Date.now();
  let nextWord = started;
  for (;;) {
    const [row] = await session.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEY}) AS ok`);
    if (row?.ok) return;
    const now = Date.now();
    if (now - started >= waitMs) {
      const holder = await lockHolder(session);
      throw new ConfigError(
        `gave up after ${Math.round(waitMs / 1000)} s waiting for the bootstrap lock, held by ${holder}. ` +
          'Another brain init, brain up or brain subjects is running on this database: let it finish. ' +
          'If that session is stuck, end it (SELECT pg_terminate_backend(PID) as the admin) and run the command again.',
      );
    }
    if (now >= nextWord) {
      say(`waiting for the bootstrap lock, held by ${await lockHolder(session)} (another brain init, brain up or brain subjects?); giving up in ${Math.round((waitMs - (now - started)) / 1000)} s`);
      nextWord = now + 30_000;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(10, waitMs - (now - started)))));
  }
}

/** What database.sql could not revoke (under an admin that is not a superuser), or undefined. */
async function hardeningLeft(session: SqlSession): Promise<string | undefined> {
  const [row] = await session.query<{ lo: boolean; advisory: boolean }>(
    `SELECT has_function_privilege('public', 'pg_catalog.lo_from_bytea(oid, bytea)', 'EXECUTE') AS lo,
            has_function_privilege('public', 'pg_catalog.pg_advisory_lock(bigint)', 'EXECUTE') AS advisory`,
  );
  if (!row?.lo && !row?.advisory) return undefined;
  return (
    'the admin connection is not a superuser, so every role of this database can still create large objects and take advisory locks ' +
    '(side doors past the deny-list and a way to stall the bootstrap); run brain init once as a superuser to revoke them (docs/isolation.md)'
  );
}

async function migrate(
  session: SqlSession,
  ownerRole: string,
  scope: string,
  schema: string,
  migrations: readonly Migration[],
  features: ReadonlySet<string>,
  report: BootstrapReport,
): Promise<void> {
  const result = await applyMigrations(session, migrations, { ownerRole, scope, schema, features });
  report.migrationsApplied.push(...result.applied.map((f) => `${scope}: ${f}`));
  report.migrationsSkipped.push(...result.skipped.map((f) => `${scope}: ${f}`));
}

interface RoleRow {
  rolname: string;
  rolsuper: boolean;
  rolinherit: boolean;
  rolcreaterole: boolean;
  rolcreatedb: boolean;
  rolcanlogin: boolean;
  rolreplication: boolean;
  rolbypassrls: boolean;
}

/** The owner (NOLOGIN), one role per subject and the audit role; no role is a member of another. */
async function ensureRoles(session: SqlSession, opts: BootstrapOptions, report: BootstrapReport): Promise<void> {
  const cfg = opts.subjects;
  const login = opts.secrets !== null;
  const wanted: { role: string; login: boolean }[] = [
    { role: cfg.ownerRole, login: false },
    { role: cfg.auditRole, login },
    ...cfg.subjects.map((s) => ({ role: s.role, login })),
  ];
  const existing = new Map(
    (await session.query<RoleRow>('SELECT * FROM pg_roles WHERE rolname = ANY($1)', [wanted.map((w) => w.role)])).map((r) => [r.rolname, r]),
  );
  for (const { role, login: canLogin } of wanted) {
    const attrs = `${canLogin ? 'LOGIN' : 'NOLOGIN'} NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS`;
    const row = existing.get(role);
    const secret = canLogin ? opts.secrets!.ensure(role) : undefined;
    if (!row) {
      await createRole(session, role, attrs, secret?.password);
      report.rolesCreated.push(role);
    } else {
      const drifted =
        row.rolsuper || row.rolinherit || row.rolcreaterole || row.rolcreatedb || row.rolreplication || row.rolbypassrls || row.rolcanlogin !== canLogin;
      if (drifted) await session.exec(`ALTER ROLE ${ident(role)} WITH ${attrs}`);
    }
    // No app role may SET ROLE to another: strip any membership someone added by hand.
    const memberships = await session.query<{ name: string }>(
      'SELECT r.rolname AS name FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = $1',
      [role],
    );
    for (const { name } of memberships) await session.exec(`REVOKE ${ident(name)} FROM ${ident(role)}`);
  }
  // Role settings, asserted again on every run (a role may ALTER ROLE its own defaults).
  for (const role of [cfg.auditRole, ...cfg.subjects.map((s) => s.role)]) {
    const wantedSettings = { ...APP_ROLE_SETTINGS, ...(role === cfg.auditRole ? { default_transaction_read_only: 'on' } : {}) };
    const [row] = await session.query<{ setconfig: string[] | null }>(
      `SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = $1 AND s.setdatabase = 0`,
      [role],
    );
    for (const [name, value] of Object.entries(wantedSettings)) {
      if (!row?.setconfig?.includes(`${name}=${value}`)) await session.exec(`ALTER ROLE ${ident(role)} SET ${name} = ${literal(value)}`);
    }
  }
  // The bootstrap creates objects as the owner role, so the admin must be able to SET ROLE to it.
  const [me] = await session.query<{ rolsuper: boolean; member: boolean }>(
    'SELECT rolsuper, pg_has_role(current_user, $1, \'MEMBER\') AS member FROM pg_roles WHERE rolname = current_user',
    [cfg.ownerRole],
  );
  if (!me?.rolsuper && !me?.member) await session.exec(`GRANT ${ident(cfg.ownerRole)} TO CURRENT_USER`);
}

/**
 * Makes each login role's password equal to its file. The password files are the truth
 * (brain-up.sh may have generated them before the roles existed); a fingerprint of what
 * was last applied keeps a re-run from touching roles whose file did not change.
 */
async function syncPasswords(session: SqlSession, cfg: SubjectsConfig, secrets: SecretStore): Promise<void> {
  const applied = new Map(
    (await session.query<{ role: string; sha256: string }>('SELECT role, sha256 FROM brain_private.role_secrets')).map((r) => [r.role, r.sha256]),
  );
  for (const role of [cfg.auditRole, ...cfg.subjects.map((s) => s.role)]) {
    const { password } = secrets.ensure(role);
    const sha = createHash('sha256').update(password).digest('hex');
    if (applied.get(role) === sha) continue;
    await session.exec(`ALTER ROLE ${ident(role)} WITH PASSWORD ${literal(password)}`);
    await session.query(
      'INSERT INTO brain_private.role_secrets (role, sha256) VALUES ($1, $2) ON CONFLICT (role) DO UPDATE SET sha256 = EXCLUDED.sha256',
      [role, sha],
    );
  }
}

async function createRole(session: SqlSession, role: string, attrs: string, password: string | undefined): Promise<void> {
  try {
    await session.exec(`CREATE ROLE ${ident(role)} WITH ${attrs}${password ? ` PASSWORD ${literal(password)}` : ''}`);
  } catch (cause) {
    if (sqlState(cause) === '42501') {
      throw new ConfigError(`the admin connection may not create role "${role}"; bootstrap as a superuser or a role with CREATEROLE`, { cause });
    }
    throw cause;
  }
}

/** brain, brain_ext (extensions), brain_private (secrets no app role reads); returns the features present. */
async function ensureSharedSchemas(session: SqlSession, cfg: SubjectsConfig): Promise<Set<string>> {
  const owner = ident(cfg.ownerRole);
  for (const schema of SHARED_SCHEMAS) await session.exec(`CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${owner}`);
  await session.exec(`SET ROLE ${owner}; ${MIGRATIONS_TABLE}; RESET ROLE`);
  const available = new Set(
    (await session.query<{ name: string }>('SELECT name FROM pg_available_extensions WHERE name = ANY($1)', [[...EXTENSIONS]])).map((r) => r.name),
  );
  const installed = new Map(
    (
      await session.query<{ extname: string; schema: string }>(
        'SELECT e.extname, n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ANY($1)',
        [[...EXTENSIONS]],
      )
    ).map((r) => [r.extname, r.schema]),
  );
  const features = new Set<string>();
  for (const ext of EXTENSIONS) {
    const where = installed.get(ext);
    if (where !== undefined && where !== 'brain_ext') {
      throw new ConfigError(`extension ${ext} is installed in schema "${where}"; claude-brain expects it in brain_ext (ALTER EXTENSION ${ext} SET SCHEMA brain_ext)`);
    }
    if (where === undefined && available.has(ext)) {
      try {
        await session.exec(`CREATE EXTENSION IF NOT EXISTS ${ext} SCHEMA brain_ext`);
      } catch (cause) {
        // Not fatal: without pgvector the brain still works, with keyword search only.
        if (sqlState(cause) !== '42501') throw cause;
        continue;
      }
    }
    if (where !== undefined || available.has(ext)) features.add(ext);
  }
  return features;
}

/**
 * The embedded brain's superuser reads its vector indexes into PGlite's page cache with
 * pageinspect's get_raw_page (db/vector-prewarm.ts). In brain_private, where no app role has
 * USAGE, so no subject can even name its functions (which pageinspect grants to no one).
 * Created here rather than when first needed: the extension is part of the catalog that the
 * embedded brain's next start compares (db/bootstrap-state.ts). Not on a Postgres server, whose
 * page cache is its own business (pg_prewarm). Without the extension's files the brain still
 * works: the index is then read by the first searches, as before.
 */
async function ensurePageInspect(session: SqlSession): Promise<void> {
  const available = await session.query<{ name: string }>(`SELECT name FROM pg_available_extensions WHERE name = 'pageinspect'`);
  if (available.length === 0) return;
  await session.exec('CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA brain_private');
}

async function ensureSubjectSchema(session: SqlSession, cfg: SubjectsConfig, subject: Subject): Promise<void> {
  await session.exec(`CREATE SCHEMA IF NOT EXISTS ${ident(subject.name)} AUTHORIZATION ${ident(cfg.ownerRole)}`);
  await session.query('INSERT INTO brain.subjects (name, role, is_personal) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
    subject.name,
    subject.role,
    subject.isPersonal,
  ]);
}

/**
 * Settings the triggers read (the role prefix tells an upcast from personal's own write). The
 * per-row triggers take the prefix from brain.role_prefix(), which is made here to return it as
 * a constant (migrations/global/0013_role_prefix.sql), as the owner, who owns the function.
 */
async function syncSettings(session: SqlSession, cfg: SubjectsConfig): Promise<void> {
  await session.query(
    `INSERT INTO brain.settings (key, value) VALUES ('role_prefix', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE brain.settings.value IS DISTINCT FROM EXCLUDED.value`,
    [cfg.rolePrefix],
  );
  const rows = await session.query<{ body: string | null; volatile: string | null; config: boolean }>(
    "SELECT p.prosrc AS body, p.provolatile::text AS volatile, p.proconfig IS NOT NULL AS config FROM pg_proc p WHERE p.oid = to_regprocedure('brain.role_prefix()')",
  );
  // No SET clause (Postgres would not inline it) and nothing to resolve: the type is qualified.
  const body = ` SELECT ${literal(cfg.rolePrefix)}::pg_catalog.text `;
  if (rows[0]?.body === body && rows[0].volatile === 'i' && !rows[0].config) return;
  await session.exec(
    `SET ROLE ${ident(cfg.ownerRole)};
     CREATE OR REPLACE FUNCTION brain.role_prefix() RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$${body}$$;
     RESET ROLE`,
  );
}

/** What syncKinds changed in brain.kinds. */
export interface KindsSyncReport {
  added: string[];
  /** Kinds whose description changed. */
  changed: string[];
  removed: string[];
}

/**
 * `brain kinds sync`: syncKinds alone, under the bootstrap's lock, for a brain that exists
 * (the rest of the bootstrap, roles and passwords included, is `brain init`'s business).
 */
export async function syncKindsNow(session: SqlSession, cfg: SubjectsConfig, kinds: readonly Kind[]): Promise<KindsSyncReport> {
  await takeBootstrapLock(session, {});
  try {
    return await syncKinds(session, cfg, kinds);
  } finally {
    await session.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`);
  }
}

/** Makes brain.kinds equal to kinds.yaml. Removing or reclassifying a kind in use is refused with the count. */
export async function syncKinds(session: SqlSession, cfg: SubjectsConfig, kinds: readonly Kind[]): Promise<KindsSyncReport> {
  const report: KindsSyncReport = { added: [], changed: [], removed: [] };
  await inTransaction(session, async () => {
    report.added.length = report.changed.length = report.removed.length = 0;
    await session.exec(`SET LOCAL ROLE ${ident(cfg.ownerRole)}`);
    const current = await session.query<Kind>('SELECT name, class, description FROM brain.kinds');
    const byName = new Map(current.map((k) => [k.name, k]));
    for (const stale of current.filter((c) => !kinds.some((k) => k.name === c.name && k.class === c.class))) {
      const uses = await countKindUses(session, cfg, stale);
      if (uses.total > 0) {
        const moved = kinds.find((k) => k.name === stale.name);
        throw new ConfigError(
          `kinds.yaml ${moved ? `moves kind "${stale.name}" from ${stale.class} to ${moved.class}` : `no longer lists kind "${stale.name}"`}, ` +
            `but ${uses.total} ${stale.class === 'topic' ? 'topic' : 'episode'}(s) still use it (${uses.detail}); ` +
            'change their kind first, or keep the kind',
        );
      }
      await session.query('DELETE FROM brain.kinds WHERE name = $1', [stale.name]);
      byName.delete(stale.name);
      if (!kinds.some((k) => k.name === stale.name)) report.removed.push(stale.name);
    }
    for (const kind of kinds) {
      const have = byName.get(kind.name);
      if (have && have.class === kind.class && have.description === kind.description) continue;
      (have ? report.changed : report.added).push(kind.name);
      await session.query(
        `INSERT INTO brain.kinds (name, class, description) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description`,
        [kind.name, kind.class, kind.description],
      );
    }
  });
  return report;
}

async function countKindUses(session: SqlSession, cfg: SubjectsConfig, kind: Kind): Promise<{ total: number; detail: string }> {
  const table = kind.class === 'topic' ? 'topics' : 'episodes';
  let total = 0;
  const parts: string[] = [];
  for (const s of cfg.subjects) {
    const [row] = await session.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${ident(s.name)}.${table} WHERE kind = $1`, [kind.name]);
    if (row && row.n > 0) {
      total += row.n;
      parts.push(`${s.name}: ${row.n}`);
    }
  }
  return { total, detail: parts.join(', ') };
}

function template(file: string, values: Record<string, string>): string {
  return readFileSync(`${GRANTS_DIR}/${file}`, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${file}: unknown placeholder {{${key}}}`);
    return ident(value);
  });
}

/**
 * The whole isolation model, applied from db/grants/*.sql. Grants only ever add what the
 * design allows; for every pair the design does not allow, everything is revoked, so a
 * grant someone added by hand does not survive the next start.
 */
export async function applyGrants(session: SqlSession, cfg: SubjectsConfig): Promise<void> {
  const [{ db }] = (await session.query<{ db: string }>('SELECT current_database() AS db')) as [{ db: string }];
  const personal = cfg.subjects.find((s) => s.isPersonal)!;
  // Run as the admin: a superuser's GRANT acts as the object's owner, and GRANT CONNECT
  // and REVOKE ... ON DATABASE need the database owner's rights, which the owner role lacks.
  await inTransaction(session, async () => {
    for (const role of [cfg.auditRole, ...cfg.subjects.map((s) => s.role)]) {
      await session.exec(template('role.sql', { database: db, role }));
    }
    await session.exec(template('audit.sql', { audit: cfg.auditRole, owner: cfg.ownerRole }));
    for (const subject of cfg.subjects) {
      await session.exec(template('subject.sql', { schema: subject.name, role: subject.role, owner: cfg.ownerRole, audit: cfg.auditRole }));
      if (!subject.isPersonal) {
        await session.exec(template('upcast.sql', { personal: personal.name, role: subject.role, owner: cfg.ownerRole }));
      }
      for (const other of cfg.subjects) {
        const allowed = other.name === subject.name || (other.isPersonal && !subject.isPersonal);
        if (allowed) continue;
        await session.exec(
          `REVOKE ALL ON SCHEMA ${ident(other.name)} FROM ${ident(subject.role)}; ` +
            `REVOKE ALL ON ALL TABLES IN SCHEMA ${ident(other.name)} FROM ${ident(subject.role)}; ` +
            `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${ident(other.name)} FROM ${ident(subject.role)}`,
        );
      }
    }
    await session.exec(template('database.sql', { database: db, owner: cfg.ownerRole }));
  });
}
