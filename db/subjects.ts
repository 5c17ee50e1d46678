// Removing a subject never silently drops data: its schema is renamed to an archive name
// (still there for the admin and for backups), its role loses every right and is dropped.
import type { Subject, SubjectsConfig } from '../config/subjects.js';
import { ConfigError } from '../config/subjects.js';
import { ident, inTransaction, type SqlSession } from './sql.js';

/** The subject `name`, if it may be taken out of service: it exists and is not the shared one. */
export function removableSubject(cfg: SubjectsConfig, name: string): Subject {
  const subject = cfg.subjects.find((s) => s.name === name);
  if (!subject) throw new ConfigError(`unknown subject "${name}"`);
  if (subject.isPersonal) throw new ConfigError('the shared subject "personal" cannot be removed');
  return subject;
}

export async function archiveSubject(session: SqlSession, cfg: SubjectsConfig, name: string, now = new Date()): Promise<string> {
  const subject = removableSubject(cfg, name);
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const archive = `archived_${name}_${stamp}`;
  await inTransaction(session, async () => {
    await session.exec(`ALTER SCHEMA ${ident(name)} RENAME TO ${ident(archive)}`);
    await session.exec(`REVOKE ALL ON SCHEMA ${ident(archive)} FROM ${ident(subject.role)}, ${ident(cfg.auditRole)}`);
    await session.exec(`REVOKE ALL ON ALL TABLES IN SCHEMA ${ident(archive)} FROM ${ident(subject.role)}, ${ident(cfg.auditRole)}`);
    // Revokes every remaining privilege and default privilege of the role (it owns nothing).
    await session.exec(`DROP OWNED BY ${ident(subject.role)}`);
    await session.exec(`DROP ROLE ${ident(subject.role)}`);
    await session.query('UPDATE brain.schema_migrations SET scope = $2 WHERE scope = $1', [name, archive]);
    await session.query('DELETE FROM brain.subjects WHERE name = $1', [name]);
  });
  return archive;
}
