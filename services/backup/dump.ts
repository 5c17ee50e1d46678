// Writes a restorable backup of all subjects (or some) from a session that can read
// them: the admin, or the read-only audit role. Rows stream out table by table.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { ident, type SqlSession } from '../../db/sql.js';
import { BACKUP_FORMAT, BACKUP_VERSION, type BackupHeader } from './format.js';

const CHUNK = 500;

export async function subjectTables(session: SqlSession, subject: string): Promise<string[]> {
  const rows = await session.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [subject]);
  return rows.map((r) => r.t);
}

async function* lines(session: SqlSession, subjects: readonly string[], createdAt: Date): AsyncGenerator<string> {
  // One snapshot for the whole backup: every table as of the same moment.
  await session.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const status = await session.query<{ scope: string; versions: number[] }>(
      'SELECT scope, array_agg(version ORDER BY version) AS versions FROM brain.schema_migrations GROUP BY scope',
    );
    const header: BackupHeader = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: createdAt.toISOString(),
      subjects: [...subjects],
      migrations: Object.fromEntries(status.filter((s) => s.scope === 'global' || subjects.includes(s.scope)).map((s) => [s.scope, s.versions])),
    };
    yield `${JSON.stringify(header)}\n`;
    for (const subject of subjects) {
      for (const table of await subjectTables(session, subject)) {
        await session.exec(`DECLARE brain_backup NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${ident(subject)}.${ident(table)} t`);
        for (;;) {
          const rows = await session.query<{ r: string }>(`FETCH ${CHUNK} FROM brain_backup`);
          if (rows.length === 0) break;
          // Rows are embedded as raw JSON text, never re-serialised by JavaScript.
          yield `{"table":${JSON.stringify(`${subject}.${table}`)},"rows":[${rows.map((r) => r.r).join(',')}]}\n`;
        }
        await session.exec('CLOSE brain_backup');
      }
    }
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export async function writeBackup(session: SqlSession, subjects: readonly string[], file: string, now = new Date()): Promise<void> {
  await pipeline(Readable.from(lines(session, subjects, now)), createGzip(), createWriteStream(file, { mode: 0o600, flags: 'wx' }));
}
