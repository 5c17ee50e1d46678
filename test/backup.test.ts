// Backup then restore into a fresh brain reproduces every subject's rows exactly,
// compared table by table, on both databases; restore refuses a brain that is not empty.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import pg from 'pg';
import { ident, pgSession, type SqlSession } from '../db/sql.js';
import { subjectTables, writeBackup } from '../services/backup/dump.js';
import { restoreBackup } from '../services/backup/restore.js';
import { archiveTopic, createTopic, linkTopics, raw, recordEpisode, updateTopic, upcast } from '../services/knowledge/index.js';
import { embeddedBrain, serverBrain, testSubjects, type BrainUnderTest } from './support/brains.js';
import { describeOnBothDatabases } from './support/both-databases.js';
import { contextFor, roleOf } from './support/knowledge.js';

async function fingerprint(session: SqlSession, subjects: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const s of subjects) {
    for (const t of await subjectTables(session, s)) {
      const [row] = await session.query<{ n: number; h: string | null }>(
        `SELECT count(*)::int AS n, md5(string_agg(row_to_json(x)::text, E'\\n' ORDER BY row_to_json(x)::text)) AS h FROM ${ident(s)}.${ident(t)} x`,
      );
      out[`${s}.${t}`] = `${row!.n}:${row!.h}`;
    }
  }
  return out;
}

async function fill(brain: BrainUnderTest): Promise<void> {
  const homelab = await contextFor(brain, 'homelab');
  await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'ZFS', frontmatter: { z: 1, a: [2, { y: true }] }, tags: ['storage'] });
  await updateTopic(homelab, { slug: 'env/nas', body: 'ZFS mirror', reason: 'more detail' });
  await recordEpisode(homelab, { kind: 'deploy', occurredAt: '2026-11-29T10:11:12.123456Z', title: 'Deployed', topics: ['env/nas'] });
  await createTopic(homelab, { slug: 'tmp/x', kind: 'concept', title: 'Temporary' });
  // Cards are archived, not deleted; a delete (the subject's role at psql) still leaves its versions.
  await brain.asRole(roleOf(brain, 'homelab'), (s) => s.exec("DELETE FROM homelab.topics WHERE slug = 'tmp/x'"), { commit: true });
  await createTopic(homelab, { slug: 'tmp/old', kind: 'concept', title: 'Old' });
  await archiveTopic(homelab, { slug: 'tmp/old', reason: 'superseded' });
  await createTopic(homelab, { slug: 'pattern/backup', kind: 'methodology', title: 'Backups', body: 'Test restores.' });
  await upcast(homelab, { slug: 'pattern/backup', personalSlug: 'pattern/backup', reason: 'generic' });
  await linkTopics(homelab, { from: 'env/nas', to: 'pattern/backup', toSubject: 'personal', context: 'see' });
  await raw(homelab, { slug: 'env/nas', source: 'smart', data: { b: 1, a: 2 } });
  const novel = await contextFor(brain, 'novel');
  await createTopic(novel, { slug: 'character/ada', kind: 'character', title: 'Ada', body: 'Ünïcödé ✓ 日本語' });
}

describeOnBothDatabases('backup and restore', (brain, target) => {
  it('reproduces every subject\'s rows exactly in a fresh brain, and ids keep counting', async () => {
    await fill(brain());
    const dir = mkdtempSync(join(tmpdir(), 'brain-backup-'));
    const file = join(dir, 'b.jsonl.gz');
    const subjects = brain().config.subjects.map((s) => s.name);
    await writeBackup(brain().admin, subjects, file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const fresh = target === 'pglite' ? await embeddedBrain(testSubjects()) : await serverBrain(inject('pgAdminUrl')!, testSubjects());
    try {
      const report = await restoreBackup(fresh.admin, file, subjects);
      expect(report.rows['homelab.topics']).toBe(3);
      expect(await fingerprint(fresh.admin, subjects)).toEqual(await fingerprint(brain().admin, subjects));
      // The restored brain works: new rows get new ids, the guards are back on.
      const homelab = await contextFor(fresh, 'homelab');
      const t = await createTopic(homelab, { slug: 'env/new', kind: 'environment', title: 'New' });
      const [max] = await fresh.admin.query<{ m: number }>('SELECT max(id)::int AS m FROM homelab.topics WHERE slug <> $1', ['env/new']);
      expect(t.id).toBeGreaterThan(max!.m);
      await expect(fresh.admin.query("INSERT INTO personal.topics (slug, kind, title, body) VALUES ('x', 'concept', 'x', 'nas01')")).rejects.toMatchObject({ code: 'BRD01' });
      // Restore refuses a brain that already holds knowledge.
      await expect(restoreBackup(fresh.admin, file, subjects)).rejects.toThrow(/not empty/);
      // On a server the backup is taken by the read-only audit role, never the admin.
      if (target === 'postgres') {
        const viaAudit = join(dir, 'audit.jsonl.gz');
        const loc = { port: brain().location!.port, db: brain().location!.database };
        const audit = new pg.Client({ host: '127.0.0.1', port: loc.port, database: loc.db, user: brain().config.auditRole, password: readFileSync(brain().secretsFile!(brain().config.auditRole), 'utf8').trim() });
        await audit.connect();
        try {
          await writeBackup(pgSession(audit), subjects, viaAudit);
        } finally {
          await audit.end();
        }
        const again = await serverBrain(inject('pgAdminUrl')!, testSubjects());
        try {
          await restoreBackup(again.admin, viaAudit, subjects);
          expect(await fingerprint(again.admin, subjects)).toEqual(await fingerprint(brain().admin, subjects));
        } finally {
          await again.close();
        }
      }
    } finally {
      await fresh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
