// Brings a backup back into an empty brain. Runs as the admin: rows go in exactly as they
// were (ids, timestamps, history), with triggers off (session_replication_role = replica)
// so the outbox and versions are restored rather than rewritten, and identity sequences
// are moved past the restored ids. Everything happens in one transaction.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { ConfigError } from '../../config/subjects.js';
import { ident, inTransaction, type SqlSession } from '../../db/sql.js';
import { BACKUP_FORMAT, type BackupHeader, type TableChunk } from './format.js';

async function* readLines(file: string): AsyncGenerator<string> {
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) if (line) yield line;
}

export interface RestoreReport {
  subjects: string[];
  rows: Record<string, number>;
}

export async function readBackupHeader(file: string): Promise<BackupHeader> {
  for await (const line of readLines(file)) {
    const header = JSON.parse(line) as BackupHeader;
    if (header.format !== BACKUP_FORMAT) throw new ConfigError(`${file} is not a claude-brain backup`);
    return header;
  }
  throw new ConfigError(`${file} is empty`);
}

export async function restoreBackup(session: SqlSession, file: string, knownSubjects: readonly string[]): Promise<RestoreReport> {
  const header = await readBackupHeader(file);
  const missing = header.subjects.filter((s) => !knownSubjects.includes(s));
  if (missing.length) {
    throw new ConfigError(`the backup holds subject(s) ${missing.join(', ')} that this brain does not have; add them first (brain subjects add NAME)`);
  }
  for (const subject of header.subjects) {
    const [row] = await session.query<{ n: number }>(`SELECT (SELECT count(*) FROM ${ident(subject)}.topics) + (SELECT count(*) FROM ${ident(subject)}.episodes) + (SELECT count(*) FROM ${ident(subject)}.documents) AS n`);
    if (Number(row?.n) > 0) throw new ConfigError(`subject "${subject}" is not empty; restore goes into an empty brain (restore into a fresh BRAIN_HOME or database)`);
  }
  const report: RestoreReport = { subjects: header.subjects, rows: {} };
  await inTransaction(session, async () => {
    await session.exec('SET LOCAL session_replication_role = replica');
    let first = true;
    for await (const line of readLines(file)) {
      if (first) {
        first = false;
        continue;
      }
      const chunk = JSON.parse(line) as TableChunk;
      const [subject, table] = chunk.table.split('.') as [string, string];
      if (!header.subjects.includes(subject)) throw new ConfigError(`${file}: rows for ${chunk.table} outside the backup's subjects`);
      const qualified = `${ident(subject)}.${ident(table)}`;
      await session.query(
        `INSERT INTO ${qualified} OVERRIDING SYSTEM VALUE SELECT r.* FROM json_array_elements($1::json) e, json_populate_record(NULL::${qualified}, e) r`,
        [JSON.stringify(chunk.rows)],
      );
      report.rows[chunk.table] = (report.rows[chunk.table] ?? 0) + chunk.rows.length;
    }
    // Kinds are not in the backup (kinds.yaml is): refuse rows whose kind this brain lacks.
    for (const subject of header.subjects) {
      const bad = await session.query<{ kind: string }>(
        `SELECT DISTINCT kind FROM (SELECT kind FROM ${ident(subject)}.topics UNION ALL SELECT kind FROM ${ident(subject)}.episodes) k WHERE kind NOT IN (SELECT name FROM brain.kinds)`,
      );
      if (bad.length) throw new ConfigError(`the backup uses kinds missing from kinds.yaml: ${bad.map((b) => b.kind).join(', ')}; add them and restore again`);
      const identities = await session.query<{ t: string; c: string }>(
        "SELECT c.relname AS t, a.attname AS c FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = $1::regnamespace AND a.attidentity <> '' AND c.relkind = 'r'",
        [subject],
      );
      for (const { t, c } of identities) {
        const q = `${ident(subject)}.${ident(t)}`;
        await session.query(`SELECT setval(pg_get_serial_sequence($1, $2), GREATEST((SELECT max(${ident(c)}) FROM ${q}), 1), (SELECT max(${ident(c)}) IS NOT NULL FROM ${q}))`, [q, c]);
      }
    }
  });
  return report;
}
