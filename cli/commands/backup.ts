import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from '../../db/node-postgres.js';
import { adminUrl, loadRuntimeConfig, type RuntimeConfig } from '../../config/runtime.js';
import { findSubject, loadSubjects } from '../../config/subjects.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { SecretStore } from '../../db/secrets.js';
import { pgSession, type SqlSession } from '../../db/sql.js';
import { parseServerUrl } from '../../db/subject-db.js';
import { writeBackup } from '../../services/backup/dump.js';
import { backupFileName } from '../../services/backup/format.js';
import { restoreBackup } from '../../services/backup/restore.js';
import { parse, printJson } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain backup [--subject NAME ...] [--out FILE] [--json]';

/**
 * A session that can read every subject: the read-only audit role on a server (its
 * password is in the secrets folder), so a backup never needs the admin password;
 * the embedded brain's own connection otherwise.
 */
async function readerSession(rt: RuntimeConfig): Promise<{ session: SqlSession; close: () => Promise<void> }> {
  if (rt.mode === 'embedded') {
    const admin = await openAdmin(rt);
    await runBootstrap(rt, admin);
    return { session: admin.session, close: () => admin.close() };
  }
  const cfg = loadSubjects(rt.subjectsFile);
  const password = new SecretStore(rt.secretsDir).read(cfg.auditRole);
  const client = password
    ? new pg.Client({ ...parseServerUrl(rt.databaseUrl!), user: cfg.auditRole, password, application_name: 'claude-brain:backup' })
    : new pg.Client({ connectionString: adminUrl(), application_name: 'claude-brain:backup' });
  await client.connect();
  return { session: pgSession(client), close: () => client.end() };
}

export const backup: Command = {
  usage,
  summary: 'Write a restorable backup (all subjects, or the ones named) to a timestamped file; restore it with `brain restore FILE`.',
  async run(args) {
    const { values } = parse(args, { subject: { type: 'string', multiple: true }, out: { type: 'string' }, json: { type: 'boolean' } }, usage);
    const rt = loadRuntimeConfig();
    const cfg = loadSubjects(rt.subjectsFile);
    const subjects = values.subject?.length ? values.subject.map((s) => findSubject(cfg, s).name) : cfg.subjects.map((s) => s.name);
    const file = values.out ? resolve(values.out) : join(rt.home, 'backups', backupFileName());
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const reader = await readerSession(rt);
    try {
      await writeBackup(reader.session, subjects, file);
    } finally {
      await reader.close();
    }
    if (values.json) printJson({ file, subjects });
    else process.stdout.write(`Backup of ${subjects.join(', ')} written to ${file}\n`);
    return 0;
  },
};

/** `brain restore FILE`: into an empty brain, as the admin. */
export async function restoreFromFile(file: string, json: boolean): Promise<number> {
  const rt = loadRuntimeConfig();
  const cfg = loadSubjects(rt.subjectsFile);
  const admin = await openAdmin(rt);
  try {
    await runBootstrap(rt, admin, cfg);
    const report = await restoreBackup(admin.session, resolve(file), cfg.subjects.map((s) => s.name));
    if (json) printJson(report);
    else {
      const total = Object.values(report.rows).reduce((a, b) => a + b, 0);
      process.stdout.write(`Restored ${total} rows into ${report.subjects.join(', ')}.\n`);
    }
    return 0;
  } finally {
    await admin.close();
  }
}
