// The import's afterWrite hook (the CLI's statistics pass on the embedded brain, cli/subject.ts):
// it runs once, after every page is written and before validation reads them back; if it
// fails, what was written stays and the report says so as a warning.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importBrain } from '../../services/gbrain/import.js';
import type { BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'brain-import-after-write-'));
  await mkdir(join(dir, 'concepts'));
  for (const [slug, title] of [['zfs-scrubs', 'ZFS scrubs'], ['ups-battery', 'UPS battery']]) {
    await writeFile(join(dir, 'concepts', `${slug}.md`), `---\ntitle: ${title}\ntype: concept\n---\n\n${title} notes.\n\n---\n\n- **2026-11-02** | log — checked the ${title}\n`);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeOnBothDatabases('GBrain import: the afterWrite hook', (brain) => {
  let ctx: BrainContext;
  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
  });
  const stored = async () => (await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.topics WHERE slug IN ('concepts/zfs-scrubs', 'concepts/ups-battery')"))[0]!.n;

  it('runs once, when every page is written, before validation', async () => {
    const seen: number[] = [];
    const r = await importBrain(ctx, dir, { afterWrite: async () => void seen.push(await stored()) });
    expect(seen).toEqual([2]);
    expect(r.ok).toBe(true);
    expect(r.pages.stored).toBe(2);
    expect(r.timings.afterWrite).toBeGreaterThanOrEqual(0);
  });

  it('a failing hook is a warning: the pages stay and validate', async () => {
    await brain().admin.query("DELETE FROM homelab.topics WHERE slug IN ('concepts/zfs-scrubs', 'concepts/ups-battery')");
    const r = await importBrain(ctx, dir, {
      afterWrite: async () => {
        throw new Error('ANALYZE refused');
      },
    });
    expect(r.ok).toBe(true);
    expect(r.pages).toMatchObject({ created: 2, stored: 2 });
    expect(r.warnings).toEqual([expect.objectContaining({ path: dir, reason: expect.stringContaining('ANALYZE refused') })]);
    expect(await stored()).toBe(2);
  });
});
