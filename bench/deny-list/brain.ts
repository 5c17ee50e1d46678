// A throwaway brain for the deny-list benches, built through the real bootstrap with the
// shipped subjects' shape (personal and three projects), kinds and deny-list: PGlite in
// memory (a role's statements under SET LOCAL ROLE), or a fresh database on a server given
// by admin URL (a role's statements over a real login connection with its generated
// password; dropped afterwards). The deny-list tests use test/support/brains.ts, which has
// the same shape (CorpusBrain is what the routes need of either).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { parseSubjects, type SubjectsConfig } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { SecretStore } from '../../db/secrets.js';
import { pgliteSession, pgSession, type SqlSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { openServerSubjectDb } from '../../db/server-subject-db.js';
import { loginAsRole, pgliteAsRole } from '../../test/support/as-role.js';
import { createScratchDatabase } from '../scratch-database.js';

export interface CorpusBrain {
  readonly label: string;
  readonly config: SubjectsConfig;
  readonly admin: SqlSession;
  /** Runs fn as `role` in one transaction; rolled back unless commit is asked for. */
  asRole<T>(role: string, fn: (s: SqlSession) => Promise<T>, opts?: { commit?: boolean }): Promise<T>;
  subjectDb(subject: string): SubjectDb;
}

export interface ClosableCorpusBrain extends CorpusBrain {
  close(): Promise<void>;
}

function subjects(): SubjectsConfig {
  const prefix = `d${randomBytes(3).toString('hex')}_`;
  const names = ['personal', 'homelab', 'novel', 'book'];
  return parseSubjects(`role_prefix: ${prefix}\nsubjects:\n${names.map((n, i) => `  ${n}:\n    port: ${17600 + i}\n`).join('')}`, 'bench subjects');
}

const inputs = () => ({ kinds: loadKinds(join(PACKAGE_ROOT, 'kinds.yaml')), denyList: loadDenyList(join(PACKAGE_ROOT, 'deny-list.yaml')) });

export async function embeddedCorpusBrain(): Promise<ClosableCorpusBrain> {
  const config = subjects();
  const embedded = await EmbeddedDatabase.open();
  const admin = pgliteSession(embedded.pg);
  await embedded.lock.run(() => bootstrap(admin, { subjects: config, ...inputs(), secrets: null }));
  const handles: SubjectDb[] = [];
  return {
    label: 'PGlite (embedded)',
    config,
    admin,
    asRole: pgliteAsRole(embedded, admin),
    subjectDb(subject) {
      const handle = openEmbeddedSubjectDb(embedded, config.subjects.find((x) => x.name === subject)!);
      handles.push(handle);
      return handle;
    },
    async close() {
      for (const h of handles) await h.close();
      await embedded.close();
    },
  };
}

export async function serverCorpusBrain(adminUrl: string): Promise<ClosableCorpusBrain> {
  const config = subjects();
  const scratch = await createScratchDatabase(adminUrl, 'brain_deny');
  const admin = pgSession(scratch.admin);
  const secretsDir = mkdtempSync(join(tmpdir(), 'brain-deny-'));
  const secrets = new SecretStore(secretsDir);
  await bootstrap(admin, { subjects: config, ...inputs(), secrets });
  const location = { host: scratch.url.hostname, port: Number(scratch.url.port || 5432), database: scratch.database };
  const clients = new Map<string, pg.Client>();
  const handles: SubjectDb[] = [];
  const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v"))[0]!.v.split(' ')[0];
  return {
    label: `PostgreSQL ${version} (server, login roles)`,
    config,
    admin,
    asRole: loginAsRole(async (role) => {
      let client = clients.get(role);
      if (!client) {
        client = new pg.Client({ ...location, user: role, password: secrets.read(role) ?? 'no-password' });
        await client.connect();
        clients.set(role, client);
      }
      return client;
    }),
    subjectDb(subject) {
      const s = config.subjects.find((x) => x.name === subject)!;
      const handle = openServerSubjectDb(location, s, secrets.read(s.role)!);
      handles.push(handle);
      return handle;
    },
    async close() {
      for (const h of handles) await h.close();
      for (const c of clients.values()) await c.end().catch(() => undefined);
      await scratch.drop(config.rolePrefix);
      rmSync(secretsDir, { recursive: true, force: true });
    },
  };
}
