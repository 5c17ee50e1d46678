// A throwaway brain for the search benchmarks, built through the real bootstrap: PGlite in
// memory or in a temporary data directory, or a fresh database on a server given by admin
// URL (dropped afterwards).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { parseSubjects, type SubjectsConfig } from '../../config/subjects.js';
import { bootstrap, type BootstrapReport } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { maintainEmbedded } from '../../db/embedded-maintenance.js';
import { SecretStore } from '../../db/secrets.js';
import { ident, pgliteSession, pgSession, type SqlSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { openServerSubjectDb } from '../../db/server-subject-db.js';
import { createContext, type BrainContext } from '../../services/knowledge/context.js';
import { createScratchDatabase } from '../scratch-database.js';

export interface BenchBrain {
  label: string;
  admin: SqlSession;
  report: BootstrapReport;
  context(subject: string): Promise<BrainContext>;
  /**
   * As after loading a brain and starting it again: an embedded brain on disk is closed and
   * reopened (its page cache sized from its files, as db/open.ts does) and maintained as its
   * server would (db/embedded-maintenance.ts); a server's loaded tables are vacuumed and
   * analysed, as its autovacuum soon would. Contexts taken before are closed. Returns what the
   * brain runs with and how long maintenance took.
   */
  restart(): Promise<{ settings: string; maintenanceSeconds: number }>;
  close(): Promise<void>;
}

/** personal and homelab, or the names given (personal first). */
function subjects(names: readonly string[] = ['personal', 'homelab']): SubjectsConfig {
  const prefix = `b${randomBytes(3).toString('hex')}_`;
  const list = names.map((n, i) => `  ${n}:\n    port: ${17501 + i}\n`).join('');
  return parseSubjects(`role_prefix: ${prefix}\nsubjects:\n${list}`, 'bench subjects');
}

const kinds = () => loadKinds(join(PACKAGE_ROOT, 'kinds.yaml'));
const denyList = () => loadDenyList(join(PACKAGE_ROOT, 'deny-list.yaml'));

/** Embedded: in memory, or with `onDisk` in a temporary data directory (removed on close). */
export async function embeddedBenchBrain(opts: { onDisk?: boolean; subjects?: readonly string[] } = {}): Promise<BenchBrain> {
  const cfg = subjects(opts.subjects);
  const dir = opts.onDisk ? mkdtempSync(join(tmpdir(), 'brain-bench-pglite-')) : undefined;
  let embedded = await EmbeddedDatabase.open(dir);
  const admin: SqlSession = {
    // Always the current PGlite, across restarts.
    query: (text, params) => pgliteSession(embedded.pg).query(text, params),
    exec: (text) => pgliteSession(embedded.pg).exec(text),
  };
  const report = await bootstrap(admin, { subjects: cfg, kinds: kinds(), denyList: denyList(), secrets: null });
  const handles: SubjectDb[] = [];
  const closeHandles = async () => {
    for (const h of handles.splice(0)) await h.close();
  };
  return {
    label: 'embedded (PGlite)',
    admin,
    report,
    async context(name) {
      const h = openEmbeddedSubjectDb(embedded, cfg.subjects.find((s) => s.name === name)!);
      handles.push(h);
      return createContext(h.subject, h.db);
    },
    async restart() {
      await closeHandles();
      if (dir) {
        await embedded.close();
        embedded = await EmbeddedDatabase.open(dir);
      }
      const started = performance.now();
      await maintainEmbedded(embedded, { firstPass: true });
      const maintenanceSeconds = (performance.now() - started) / 1000;
      const cache = await embedded.pg.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v");
      return { settings: `shared_buffers ${cache.rows[0]!.v}${dir ? '' : ', in memory'}`, maintenanceSeconds };
    },
    async close() {
      await closeHandles();
      await embedded.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function serverBenchBrain(adminUrl: string): Promise<BenchBrain> {
  const cfg = subjects();
  const scratch = await createScratchDatabase(adminUrl, 'brain_bench');
  const { database, url } = scratch;
  const client = scratch.admin;
  const admin = pgSession(client);
  const secretsDir = mkdtempSync(join(tmpdir(), 'brain-bench-'));
  const secrets = new SecretStore(secretsDir);
  const report = await bootstrap(admin, { subjects: cfg, kinds: kinds(), denyList: denyList(), secrets });
  const handles: SubjectDb[] = [];
  return {
    label: `server (${url.hostname}:${url.port || 5432})`,
    admin,
    report,
    async context(name) {
      const s = cfg.subjects.find((x) => x.name === name)!;
      const h = openServerSubjectDb({ host: url.hostname, port: Number(url.port || 5432), database }, s, secrets.read(s.role)!);
      handles.push(h);
      return createContext(h.subject, h.db);
    },
    async restart() {
      // What autovacuum would do by itself within a minute of such a load; done here so that it
      // is not measured running alongside the searches.
      const started = performance.now();
      for (const s of cfg.subjects) await admin.exec(`VACUUM (ANALYZE) ${ident(s.name)}.topics, ${ident(s.name)}.episodes`);
      const maintenanceSeconds = (performance.now() - started) / 1000;
      const cache = await admin.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v");
      return { settings: `shared_buffers ${cache[0]!.v}`, maintenanceSeconds };
    },
    async close() {
      for (const h of handles) await h.close();
      await scratch.drop(cfg.rolePrefix);
      rmSync(secretsDir, { recursive: true, force: true });
    },
  };
}
