// An import keeps every page as it is (lossless), and reports the new pages that search before
// add's judgement calls the same thing as a card already there, with the merge that would fold
// them; a page like no other is not named. A re-import creates nothing and reports
// nothing.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importBrain } from '../../services/gbrain/import.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'brain-import-dups-'));
  await mkdir(join(dir, 'concepts'));
  const page = (title: string, body: string) => `---\ntitle: ${title}\ntype: concept\n---\n\n${body}\n`;
  await writeFile(join(dir, 'concepts', 'nas-storage-servers.md'), page('NAS storage servers', 'The Synology box in the rack that keeps the backups.'));
  await writeFile(join(dir, 'concepts', 'backup-routine-for-laptops.md'), page('Backup routine for laptops', 'Laptops sync to the cloud every hour.'));
  await writeFile(join(dir, 'concepts', 'sourdough.md'), page('Sourdough', 'Feed the starter daily.'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeOnBothDatabases('GBrain import weighs its new pages as duplicates', (brain) => {
  let ctx: BrainContext;
  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    await createTopic(ctx, { slug: 'concept/nas-storage-server', kind: 'concept', title: 'NAS storage server', body: 'The NAS that keeps the backups.' });
    await createTopic(ctx, { slug: 'concept/backup-routine', kind: 'concept', title: 'Backup routine', body: 'Nightly dumps of the database to the NAS.' });
  });

  it('reports the page that is the same thing, keeps every page, and reports nothing on a re-import', async () => {
    const r = await importBrain(ctx, dir);
    expect(r.pages.created).toBe(3);
    // The same title words and kind: the same thing. "Backup routine for laptops" (title
    // similarity 0.56) is below what an import weighs (0.6; lint weighs it, from 0.3), and a page
    // like no other is not named.
    expect(r.possibleDuplicates.count).toBe(1);
    expect(r.possibleDuplicates.shown).toEqual([expect.objectContaining({ a: 'concept/nas-storage-server', b: 'concepts/nas-storage-servers', verdict: 'same', by: 'title' })]);
    const [row] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.topics WHERE slug LIKE 'concepts/%'");
    expect(row!.n).toBe(3);

    const again = await importBrain(ctx, dir);
    expect(again.pages.created).toBe(0);
    expect(again.possibleDuplicates).toEqual({ count: 0, shown: [] });
  });
});
