// A small brain for the view's tests: every page has something to show. Written through the
// domain services as each subject's own role (as the MCP tools write), except what no tool
// writes: an upcast without a reason and a link to a card that is then deleted (plain SQL as
// the role, as a psql user could).
import type { BrainUnderTest } from '../support/brains.js';
import { contextFor, roleOf } from '../support/knowledge.js';
import { createTopic, linkTopics, recordEpisode, addSource, updateTopic, upcast } from '../../services/knowledge/index.js';

export const SCRIPT_BODY = 'Before <script>window.__pwned = true; document.title = "pwned"</script> after, and <img src=x onerror="window.__pwned = true">.';

export const SEEDED = {
  homelab: 'homelab',
  nas: 'environment/nas',
  restic: 'tool/restic',
  script: 'concept/script-card',
  dupA: 'tool/nas-backup-tool',
  dupB: 'tool/the-nas-backup-tool',
  orphan: 'concept/lonely-idea',
  gone: 'concept/soon-gone',
  upcastReason: 'applies to any restic setup',
  reasonless: 'methodology/unexplained-write',
} as const;

export async function seedBrain(brain: BrainUnderTest): Promise<void> {
  const homelab = await contextFor(brain, 'homelab');
  const personal = await contextFor(brain, 'personal');
  const novel = await contextFor(brain, 'novel');

  await createTopic(homelab, { slug: SEEDED.nas, kind: 'environment', title: 'The NAS', summary: 'Synology box in the rack', body: '# NAS\n\nRuns **backups** nightly.\n\n- disks: 4\n- [docs](https://example.org/nas)', tags: ['storage', 'backup'] });
  await createTopic(homelab, { slug: SEEDED.restic, kind: 'tool', title: 'restic', summary: 'Backup program', body: 'restic backs up the NAS to the cloud.', tags: ['backup'] });
  // Two more versions of the NAS card: its history has three, each with a diff.
  await updateTopic(homelab, { slug: SEEDED.nas, body: '# NAS\n\nRuns **backups** nightly at 02:00.\n\n- disks: 4\n- [docs](https://example.org/nas)', reason: 'backup time' });
  await updateTopic(homelab, { slug: SEEDED.nas, title: 'The NAS (Synology)', body: 'Runs backups nightly at 03:00 now.', reason: 'moved the window' });
  await linkTopics(homelab, { from: SEEDED.nas, to: SEEDED.restic, relation: 'relates-to', context: 'backed up with restic' });
  await recordEpisode(homelab, { kind: 'incident', occurredAt: '2026-11-20', title: 'NAS disk failed', summary: 'Disk 3 replaced', topics: [SEEDED.nas] });
  await addSource(homelab, { slug: SEEDED.nas, uri: 'https://example.org/nas-manual', title: 'NAS manual', locator: 'p. 12', quote: 'Four bays.' });
  await createTopic(homelab, { slug: SEEDED.script, kind: 'concept', title: 'A card with a script', body: SCRIPT_BODY });
  // A duplicate pair that also disagrees (the port, and restic said and denied).
  await createTopic(homelab, { slug: SEEDED.dupA, kind: 'tool', title: 'NAS backup tool', body: 'The NAS backup tool is restic. It listens on port 8000.' });
  await createTopic(homelab, { slug: SEEDED.dupB, kind: 'tool', title: 'The NAS backup tool', body: 'The NAS backup tool is not restic. It listens on port 8001.' });
  await createTopic(homelab, { slug: SEEDED.orphan, kind: 'concept', title: 'A lonely idea', body: 'Nothing links here.' });
  // A dead link: its target deleted afterwards (a tool archives; a psql user can delete).
  await createTopic(homelab, { slug: SEEDED.gone, kind: 'concept', title: 'Soon gone', body: 'Deleted by hand.' });
  await linkTopics(homelab, { from: SEEDED.restic, to: SEEDED.gone, context: 'will dangle' });
  await brain.asRole(roleOf(brain, 'homelab'), (s) => s.query('DELETE FROM homelab.topics WHERE slug = $1', [SEEDED.gone]), { commit: true });

  await createTopic(personal, { slug: 'methodology/backups', kind: 'methodology', title: 'Backups: three copies', body: 'Keep three copies, two media, one off site.' });
  await upcast(homelab, { slug: SEEDED.restic, reason: SEEDED.upcastReason, title: 'restic for backups', body: 'restic is a good backup program.' });
  // An upcast with no reason: the outbox flags it.
  await brain.asRole(
    roleOf(brain, 'homelab'),
    (s) => s.query(`INSERT INTO personal.topics (slug, kind, title, body) VALUES ($1, 'methodology', 'Unexplained write', 'Written into personal without a reason.')`, [SEEDED.reasonless]),
    { commit: true },
  );
  await createTopic(novel, { slug: 'character/ilsabet', kind: 'character', title: 'Ilsabet', body: 'The protagonist.' });
}
