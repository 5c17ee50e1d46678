// Brains under test, on both databases, built through the real bootstrap:
// - embeddedBrain(): PGlite in memory; a role's statements run under SET LOCAL ROLE.
// - serverBrain(): a fresh database on the real server; a role's statements run over a
//   real login connection with that role's generated password.
// Each brain gets its own role prefix, so tests can run in parallel on one server.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createScratchDatabase } from '../../bench/scratch-database.js';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { parseSubjects, type SubjectsConfig } from '../../config/subjects.js';
import { bootstrap, type BootstrapReport } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { SecretStore } from '../../db/secrets.js';
import { pgliteSession, pgSession, type SqlSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { openServerSubjectDb } from '../../db/server-subject-db.js';
import { loginAsRole, pgliteAsRole } from './as-role.js';

export const DEFAULT_SUBJECTS = ['personal', 'homelab', 'novel', 'book'];
export const KINDS = loadKinds(new URL('../../kinds.yaml', import.meta.url).pathname);
export const DENY_LIST = loadDenyList(new URL('../../deny-list.yaml', import.meta.url).pathname);

export interface BrainUnderTest {
  readonly label: '[pglite]' | '[postgres]';
  readonly config: SubjectsConfig;
  /** A superuser session, for setting up state and looking at it directly. */
  readonly admin: SqlSession;
  /** Runs fn as `role` in one transaction; rolled back unless commit is asked for. */
  asRole<T>(role: string, fn: (s: SqlSession) => Promise<T>, opts?: { commit?: boolean }): Promise<T>;
  subjectDb(subject: string): SubjectDb;
  bootstrap(config?: SubjectsConfig): Promise<BootstrapReport>;
  /** Server brains: the file holding a login role's generated password. */
  secretsFile?(role: string): string;
  /**
   * Server brains: where a client reaches the database. Not the server's own `port` setting,
   * which differs behind a published container port.
   */
  readonly location?: { readonly host: string; readonly port: number; readonly database: string };
  /** Embedded brains: the PGlite they run on (another role's handle on it, e.g. the web view's audit handle). */
  readonly embedded?: EmbeddedDatabase;
  close(): Promise<void>;
}

export function testSubjects(names: readonly string[] = DEFAULT_SUBJECTS, prefix = `t${randomBytes(3).toString('hex')}_`): SubjectsConfig {
  const yaml = `role_prefix: ${prefix}\nsubjects:\n${names.map((n, i) => `  ${n}:\n    port: ${17400 + i}\n`).join('')}`;
  return parseSubjects(yaml, 'test subjects');
}

export async function embeddedBrain(config = testSubjects()): Promise<BrainUnderTest> {
  const embedded = await EmbeddedDatabase.open();
  const admin = pgliteSession(embedded.pg);
  let current = config;
  const handles: SubjectDb[] = [];
  const brain: BrainUnderTest = {
    label: '[pglite]',
    embedded,
    get config() {
      return current;
    },
    admin,
    asRole: pgliteAsRole(embedded, admin),
    subjectDb(subject) {
      const s = current.subjects.find((x) => x.name === subject)!;
      const handle = openEmbeddedSubjectDb(embedded, s);
      handles.push(handle);
      return handle;
    },
    bootstrap: (next) => {
      current = next ?? current;
      return embedded.lock.run(() => bootstrap(admin, { subjects: current, kinds: KINDS, denyList: DENY_LIST, secrets: null }));
    },
    async close() {
      for (const h of handles) await h.close();
      await embedded.close();
    },
  };
  await brain.bootstrap();
  return brain;
}

export async function serverBrain(adminUrl: string, config = testSubjects()): Promise<BrainUnderTest> {
  const scratch = await createScratchDatabase(adminUrl, 'brain_test');
  const { database, url } = scratch;
  const adminClient = scratch.admin;
  const admin = pgSession(adminClient);
  const secretsDir = mkdtempSync(join(tmpdir(), 'brain-secrets-'));
  const secrets = new SecretStore(secretsDir);
  const location = { host: url.hostname, port: Number(url.port), database };
  let current = config;
  const clients = new Map<string, pg.Client>();
  const handles: SubjectDb[] = [];
  const login = async (role: string) => {
    let client = clients.get(role);
    if (!client) {
      client = new pg.Client({ ...location, user: role, password: secrets.read(role) ?? 'no-password' });
      await client.connect();
      clients.set(role, client);
    }
    return client;
  };
  const brain: BrainUnderTest = {
    label: '[postgres]',
    get config() {
      return current;
    },
    admin,
    asRole: loginAsRole(login),
    subjectDb(subject) {
      const s = current.subjects.find((x) => x.name === subject)!;
      const handle = openServerSubjectDb(location, s, secrets.read(s.role)!);
      handles.push(handle);
      return handle;
    },
    bootstrap: (next) => {
      current = next ?? current;
      return bootstrap(admin, { subjects: current, kinds: KINDS, denyList: DENY_LIST, secrets });
    },
    secretsFile: (role) => secrets.path(role),
    location,
    async close() {
      for (const h of handles) await h.close();
      for (const c of clients.values()) await c.end().catch(() => undefined);
      await scratch.drop(current.rolePrefix);
      rmSync(secretsDir, { recursive: true, force: true });
    },
  };
  await brain.bootstrap();
  return brain;
}
