// Opening the brain the runtime config describes, as admin (bootstrap, subjects, restore)
// or, for everything else, as one subject's role.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadDenyList } from '../config/deny-list.js';
import { loadKinds } from '../config/kinds.js';
import { adminUrl, type RuntimeConfig } from '../config/runtime.js';
import { ConfigError, findSubject, loadSubjects, type Subject, type SubjectsConfig } from '../config/subjects.js';
import { bootstrap, GRANTS_DIR, MIGRATIONS_DIR, type BootstrapReport } from './bootstrap.js';
import { bootstrapInputs, catalogAsClosed, catalogDigest, readBootstrapState, recordClose, writeBootstrapState } from './bootstrap-state.js';
import { DataDirError, MARKER_FILE, newMarker, planDataDir, recovery, writeMarker, type DataDirPlan } from './data-dir.js';
import { checkSinceClose, dropSnapshot, listRelationFiles, shortFiles, writeSnapshot } from './relation-files.js';
import { commandOf, DataDirBusyError, lockDataDir } from './data-lock.js';
import { LinkClient, openLinkedSubjectDb } from './link-dialect.js';
import { findRunning, lockHolder } from './running-file.js';
import { cacheSizeForBytes, EmbeddedDatabase } from './embedded.js';
import { MigrationError } from './migrate.js';
import { SecretStore } from './secrets.js';
import { pgliteSession, pgSession, type SqlSession } from './sql.js';
import type { ConnectionLog } from './reconnecting-pg.js';
import { openEmbeddedSubjectDb, parseServerUrl, type SubjectDb } from './subject-db.js';

export interface AdminConnection {
  readonly session: SqlSession;
  /** Embedded mode: the open PGlite (its subject handles share it). */
  readonly embedded: EmbeddedDatabase | undefined;
  readonly secrets: SecretStore | null;
  /** Embedded mode: what opening found in the data directory (db/data-dir.ts). */
  dataDir?: {
    readonly path: string;
    plan: DataDirPlan;
    /**
     * The catalog digest the last clean close confirmed, when nothing opened the directory since
     * (db/bootstrap-state.ts); taken by the first bootstrap check, before anything else runs.
     */
    catalogAsClosed?: string | undefined;
    /** Set once the bootstrap ran or was skipped in this session: the role prefix its catalog digest is taken with. */
    checkedWith?: { readonly rolePrefix: string };
    /** A one-shot subject command holds the brain (openSubject's oneShot): see close() in openAdmin. */
    oneShot?: boolean;
    /**
     * The bootstrap ran in this session rather than being skipped: its migrations may have made
     * relation files or replaced them (a dropped index, a rewritten table), so the close lists them again.
     */
    bootstrapped?: boolean;
  };
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * The user asked for a new brain (`brain init`, `--init`): an absent or empty data
   * directory is created even when secrets exist beside it.
   */
  readonly init?: boolean;
  /** Called as each step of opening ends, with its name (start-up timing, services/runtime/start-phases.ts). */
  readonly mark?: (phase: string) => void;
  /**
   * A command that opens the brain for a few statements and closes it (cli/subject.ts): PGlite's
   * page cache is ONE_SHOT_CACHE_MB unless BRAIN_EMBEDDED_CACHE_MB says otherwise.
   */
  readonly oneShot?: boolean;
  /**
   * PGlite's start holds this thread for most of a second (Postgres's own start, its page
   * cache). A server that listens before the brain is open passes its ListenGate's promise
   * (services/runtime/listen-gate.ts): the data directory is checked at once, PGlite starts once
   * the promise settles, so that the modules the server still loads, its listening and its first
   * answers that need no database do not wait behind Postgres.
   */
  readonly startAfter?: Promise<unknown>;
}

/**
 * The page cache of a one-shot command. PGlite allocates and touches its whole cache at start
 * (db/embedded.ts), and a server's is sized by the brain (half its files, up to 512 MB): at
 * 7,500 GBrain pages with vectors that was 268 MB, and a one-shot `brain search` took 1.5 s
 * and 445 MB of memory; with 16 MB, 1.25-1.3 s and 162 MB. A few statements read few pages.
 */
export const ONE_SHOT_CACHE_MB = 16;

let initRequested = false;

/** `brain up --init` / `brain serve --init`: every later open in this process may create the brain. */
export function requestNewBrain(): void {
  initRequested = true;
}

export async function openAdmin(rt: RuntimeConfig, options: OpenOptions = {}): Promise<AdminConnection> {
  if (rt.mode === 'embedded') {
    mkdirSync(rt.home, { recursive: true, mode: 0o700 });
    const release = lockDataDir(join(rt.home, 'data.lock'));
    try {
      const init = options.init === true || initRequested;
      const plan = planDataDir(rt.dataDir, rt.secretsDir, init);
      const damaged = (damage: string[]) =>
        new DataDirError(
          `the embedded brain in ${rt.dataDir} is damaged: ${damage.join('; ')}. What was in those files is missing from this copy. ` +
            `${recovery(rt.dataDir)}. To open it anyway and save what is left (brain export), set BRAIN_OPEN_DAMAGED=1.`,
        );
      // Before PGlite touches the folder: a file that shrank since the last clean close.
      const sinceClose = plan.action === 'create' || rt.openDamaged ? undefined : checkSinceClose(rt.dataDir);
      if (sinceClose && sinceClose.problems.size > 0) throw damaged([...sinceClose.problems.values()]);
      // Read before PGlite starts, which rewrites pg_control.
      const asClosed = plan.action === 'open' && sinceClose ? catalogAsClosed(rt.dataDir) : undefined;
      options.mark?.('data directory checked');
      await options.startAfter?.catch(() => undefined);
      let embedded: EmbeddedDatabase;
      try {
        const cacheMb =
          rt.embeddedCacheMb ??
          (options.oneShot ? ONE_SHOT_CACHE_MB : sinceClose?.relationBytes === undefined ? undefined : cacheSizeForBytes(sinceClose.relationBytes));
        embedded = await EmbeddedDatabase.open(rt.dataDir, cacheMb === undefined ? {} : { sharedBuffersMb: cacheMb });
      } catch (cause) {
        if (plan.action === 'create') throw cause;
        // A WASM abort ("Aborted(). Build with -sASSERTIONS") or a PANIC of Postgres itself.
        throw new DataDirError(
          `the embedded brain in ${rt.dataDir} could not be opened (${(cause as Error).message}); its files look damaged. ${recovery(rt.dataDir)}.`,
          { cause },
        );
      }
      options.mark?.('PGlite opened');
      // After a crash there is no snapshot; the database's own record of each file still holds.
      // A clean close's snapshot already compared every file with it (checkSinceClose).
      const short = !sinceClose || sinceClose.coversRecordedPages ? [] : await shortFiles(embedded.pg, rt.dataDir);
      if (short.length > 0) {
        await embedded.close().catch(() => undefined);
        throw damaged(short);
      }
      dropSnapshot(rt.dataDir);
      if (sinceClose && !sinceClose.coversRecordedPages) options.mark?.('file sizes checked against the database');
      if (plan.action === 'adopt' && !init) {
        let ours = false;
        try {
          ours = (await embedded.pg.query<{ ok: boolean }>("SELECT to_regclass('brain.schema_migrations') IS NOT NULL AS ok")).rows[0]?.ok === true;
        } catch {
          /* refused below */
        }
        if (!ours) {
          await embedded.close().catch(() => undefined);
          throw new DataDirError(
            `refusing to open ${rt.dataDir}: it holds a PostgreSQL data directory but no claude-brain (no ${MARKER_FILE}, no brain schema). Nothing in it was changed. ` +
              `${recovery(rt.dataDir)}; if it is what is left of a first start that failed, run with --init to set the brain up in it.`,
          );
        }
      }
      // Through the getter: a brain woken from its idle sleep is another PGlite (db/embedded.ts).
      const direct: SqlSession = {
        query: (text, params) => pgliteSession(embedded.pg).query(text, params),
        exec: (text) => pgliteSession(embedded.pg).exec(text),
      };
      const dataDir: NonNullable<AdminConnection['dataDir']> = { path: rt.dataDir, plan, catalogAsClosed: asClosed };
      // Whether anything ran as the superuser after the bootstrap check (see the close hooks).
      let adminAfterCheck = false;
      let slept = false;
      const session: SqlSession = {
        query: (text, params) => ((adminAfterCheck ||= dataDir.checkedWith !== undefined), direct.query(text, params)),
        exec: (text) => ((adminAfterCheck ||= dataDir.checkedWith !== undefined), direct.exec(text)),
      };
      // Each close of PGlite, the last one or a sleep while idle, leaves what the next open
      // checks: the snapshot of the files' sizes and the record that lets it skip the catalog
      // query (db/bootstrap-state.ts). Both are read while PGlite is open and written once it
      // has closed; the snapshot is dropped again when PGlite reopens, since the files change.
      // A one-shot subject command whose statements all ran as the subject's role, after a
      // check that found the catalog as recorded, changed neither the catalog (the role owns
      // nothing, so it can grant nothing, and the command's code reads and writes rows only:
      // no DDL, no VACUUM) nor the set of relation files: its close records both again
      // without asking Postgres, which would read catalogs none of its statements touched
      // (0.3-0.6 s of a one-shot command on a 2-core machine). Everything else asks: servers
      // (their database link runs other processes' statements), admin commands, and a one-shot
      // command whose start ran the bootstrap (its migrations may have replaced a relation's file,
      // which the last snapshot still lists: the next open called the brain damaged).
      embedded.setCloseHooks({
        async closing(pg) {
          const plain = dataDir.oneShot === true && dataDir.checkedWith !== undefined && !dataDir.bootstrapped && !adminAfterCheck && !slept;
          const files = plain && sinceClose?.relations ? sinceClose.relations : await listRelationFiles(pg).catch(() => undefined);
          const catalog = !dataDir.checkedWith
            ? undefined
            : plain
              ? readBootstrapState(rt.dataDir)?.catalog
              : await catalogDigest(pgliteSession(pg), dataDir.checkedWith.rolePrefix).catch(() => undefined);
          return () => {
            if (files) writeSnapshot(rt.dataDir, files);
            recordClose(rt.dataDir, catalog);
          };
        },
        opened() {
          slept = true;
          dropSnapshot(rt.dataDir);
        },
      });
      return {
        session,
        embedded,
        secrets: null,
        dataDir,
        async close() {
          try {
            await embedded.close();
          } finally {
            release();
          }
        },
      };
    } catch (error) {
      release();
      throw error;
    }
  }
  const { default: pg } = await import('./node-postgres.js');
  const client = new pg.Client({ connectionString: adminUrl(), application_name: 'claude-brain:admin' });
  // Without a listener a dropped admin connection would end the process; its next query fails instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (cause) {
    // The admin URL holds a password: never put it in the message.
    throw new Error(`cannot connect as admin to the database (${(cause as Error).message}); check BRAIN_ADMIN_URL`, { cause });
  }
  mkdirSync(dirname(rt.secretsDir), { recursive: true, mode: 0o700 });
  return { session: pgSession(client), embedded: undefined, secrets: new SecretStore(rt.secretsDir), close: () => client.end() };
}

export interface BootstrapRunOptions {
  /**
   * Skip the bootstrap when the embedded brain is exactly as the last one left it and it was
   * asked to do the same (db/bootstrap-state.ts): starts and one-shot commands. `brain init`
   * and the server mode always run it.
   */
  readonly skipIfCurrent?: boolean;
  readonly mark?: (phase: string) => void;
}

export type BootstrapRun = BootstrapReport & { readonly skipped?: true };

export async function runBootstrap(rt: RuntimeConfig, admin: AdminConnection, subjects?: SubjectsConfig, run: BootstrapRunOptions = {}): Promise<BootstrapRun> {
  const options = {
    subjects: subjects ?? loadSubjects(rt.subjectsFile),
    kinds: loadKinds(rt.kindsFile),
    denyList: loadDenyList(rt.denyListFile),
    secrets: admin.secrets,
  };
  const dataDir = admin.dataDir;
  if (!dataDir) return bootstrap(admin.session, options);
  const inputs = bootstrapInputs({ ...options, migrationsDir: MIGRATIONS_DIR, grantsDir: GRANTS_DIR });
  const catalog = () => catalogDigest(admin.session, options.subjects.rolePrefix).catch(() => undefined);
  const catalogAsClosed = dataDir.catalogAsClosed;
  dataDir.catalogAsClosed = undefined;
  if (run.skipIfCurrent && dataDir.plan.action === 'open') {
    const recorded = readBootstrapState(dataDir.path);
    const asClosed = recorded !== undefined && recorded.catalog === catalogAsClosed;
    if (recorded?.inputs === inputs && (asClosed || recorded.catalog === (await catalog()))) {
      dataDir.checkedWith = { rolePrefix: options.subjects.rolePrefix };
      run.mark?.(`bootstrap skipped (schema, grants, kinds and deny-list as recorded${asClosed ? ' at the last close' : ''})`);
      return { features: [], rolesCreated: [], migrationsApplied: [], migrationsSkipped: [], skipped: true };
    }
  }
  let report: BootstrapReport;
  dataDir.bootstrapped = true; // even one that fails part-way may have changed files
  try {
    report = await bootstrap(admin.session, options);
  } catch (cause) {
    // A configuration the brain refuses (a kind still in use, a changed migration) says so itself;
    // anything else on a brain that exists means its files are not what Postgres wrote.
    if (dataDir.plan.action === 'create' || cause instanceof ConfigError || cause instanceof MigrationError || cause instanceof DataDirError) throw cause;
    throw new DataDirError(
      `the embedded brain in ${dataDir.path} failed to start (${(cause as Error).message}); its files may be damaged. ${recovery(dataDir.path)}.`,
      { cause },
    );
  }
  // Only now is the folder a brain: a crash before this leaves no marker, and no claim.
  if (dataDir.plan.action !== 'open') {
    const marker = newMarker(dataDir.path, dataDir.plan.action === 'adopt');
    writeMarker(dataDir.path, marker);
    dataDir.plan = { action: 'open', marker };
  }
  const after = await catalog();
  if (after) {
    writeBootstrapState(dataDir.path, { inputs, catalog: after });
    dataDir.checkedWith = { rolePrefix: options.subjects.rolePrefix };
  }
  run.mark?.('bootstrap (roles, schemas, migrations, kinds, deny-list, grants)');
  return report;
}

export interface SubjectConnection {
  readonly subject: Subject;
  readonly handle: SubjectDb;
  /** Embedded mode, this process holding the data directory: the open PGlite (for its maintenance while serving, and to share it). */
  readonly embedded?: EmbeddedDatabase;
  /** Embedded mode, another process holding it: that process ("brain up (process 1234)"), reached through its database link. */
  readonly linkedTo?: string;
  close(): Promise<void>;
}

/** How long a subject command waits for a brain that is starting to publish its link (db/running-file.ts). */
const STARTING_BRAIN_WAIT_MS = 30_000;

/**
 * Opens one subject as its own role: on a server with that role's password (from
 * BRAIN_DB_PASSWORD_FILE or the secrets folder), never the admin's; in the embedded
 * brain through the database link of the process holding it (db/link-server.ts) when one
 * runs, else by opening the data directory (bootstrapping it first when it changed) and
 * running every statement under SET LOCAL ROLE.
 */
export async function openSubject(
  rt: RuntimeConfig,
  name: string,
  log?: ConnectionLog,
  opts: {
    mark?: (phase: string) => void;
    /** A command that runs its statements through the handle and closes (cli/subject.ts), never a server. */
    oneShot?: boolean;
    /** See OpenOptions.startAfter. */
    startAfter?: Promise<unknown>;
  } = {},
): Promise<SubjectConnection> {
  const cfg = loadSubjects(rt.subjectsFile);
  const subject = findSubject(cfg, name);
  if (rt.mode === 'server') {
    const file = rt.dbPasswordFile ?? new SecretStore(rt.secretsDir).path(subject.role);
    let password: string;
    try {
      password = readFileSync(file, 'utf8').trim();
    } catch (cause) {
      throw new ConfigError(`cannot read the password of role ${subject.role} from ${file}; run \`brain init\` once with BRAIN_ADMIN_URL, or set BRAIN_DB_PASSWORD_FILE`, { cause });
    }
    const { openServerSubjectDb } = await import('./server-subject-db.js');
    const handle = openServerSubjectDb(parseServerUrl(rt.databaseUrl!), subject, password, undefined, log);
    return { subject, handle, close: () => handle.close() };
  }
  const admin = await openAdminOrLink(rt, subject, {
    ...(opts.mark ? { mark: opts.mark } : {}),
    ...(opts.oneShot ? { oneShot: true } : {}),
    ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
  });
  if (!('session' in admin)) return admin;
  if (opts.oneShot && admin.dataDir) admin.dataDir.oneShot = true;
  try {
    await runBootstrap(rt, admin, cfg, { skipIfCurrent: true, ...(opts.mark ? { mark: opts.mark } : {}) });
  } catch (error) {
    await admin.close();
    throw error;
  }
  const handle = openEmbeddedSubjectDb(admin.embedded!, subject);
  return {
    subject,
    handle,
    embedded: admin.embedded!,
    async close() {
      await handle.close();
      await admin.close();
    },
  };
}

/**
 * The embedded brain for one subject: through the link of the process that holds it, or by
 * taking the data directory. A `brain up` or `brain serve` that is still starting (it holds
 * the lock but has not published its link yet) is waited for; any other holder is refused
 * at once, naming it.
 */
async function openAdminOrLink(rt: RuntimeConfig, subject: Subject, options: OpenOptions): Promise<AdminConnection | SubjectConnection> {
  const deadline = Date.now() + STARTING_BRAIN_WAIT_MS;
  for (;;) {
    const running = findRunning(rt.home);
    if (running?.link) {
      const holder = `${running.command} (process ${running.pid})`;
      try {
        const client = await LinkClient.connect(running.link, holder);
        const handle = openLinkedSubjectDb(client, subject);
        return { subject, handle, linkedTo: holder, close: () => handle.close() };
      } catch {
        // It stopped between publishing and now: look again.
      }
    }
    try {
      return await openAdmin(rt, options);
    } catch (error) {
      if (!(error instanceof DataDirBusyError) || Date.now() > deadline) throw error;
      const pid = lockHolder(rt.home);
      if (pid !== undefined && !/^brain (up|serve)\b/.test(commandOf(pid) ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
