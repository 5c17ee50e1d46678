// The import's validation, which keeps only each page's card id and a digest of its file
// between writing and checking (import-ledger.ts): a card or sidecar that no longer renders
// to its file is named, for pages written and for pages unchanged alike; links to pages
// that exist only later in the same import are not missing; two paths with one slug clash.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importBrain } from '../../services/gbrain/import.js';
import type { BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

let dir: string;
const page = (title: string, text: string) => `---\ntitle: ${title}\ntype: concept\n---\n\n${text}\n`;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'brain-import-check-'));
  await mkdir(join(dir, 'concepts', '.raw'), { recursive: true });
  // alpha links to zulu (written after it, in a later batch of the same import) and to a page no one wrote.
  await writeFile(join(dir, 'concepts', 'alpha.md'), page('Alpha', 'Alpha needs [Zulu](zulu.md) and [Nobody](../people/nobody.md).'));
  await writeFile(join(dir, 'concepts', 'zulu.md'), page('Zulu', 'Zulu stands alone.'));
  await writeFile(join(dir, 'concepts', '.raw', 'zulu.json'), `{"sources":{"crustdata":{"size":3}}}\n`);
  // Two paths, one slug ("concepts/ups-battery"): the first in path order keeps it.
  await writeFile(join(dir, 'concepts', 'ups battery.md'), page('UPS battery', 'The first spelling.'));
  await writeFile(join(dir, 'concepts', 'ups-battery.md'), page('UPS battery', 'The second spelling.'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeOnBothDatabases('GBrain import: validation from the ledger', (brain) => {
  let ctx: BrainContext;
  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
  });

  it('checks every stored file, names missing link targets, and refuses a slug taken by another path', async () => {
    const r = await importBrain(ctx, dir);
    expect(r.failed).toEqual([{ path: 'concepts/ups-battery.md', reason: expect.stringContaining('its slug "concepts/ups-battery" is already taken by concepts/ups battery.md') }]);
    expect(r.pages).toMatchObject({ found: 4, created: 3, failed: 1, stored: 3 });
    // Three pages and one sidecar, each rendered back and identical.
    expect(r.contentCheck).toEqual({ checked: 4, identical: 4, different: [] });
    expect(r.sidecars).toMatchObject({ found: 1, stored: 1, rawSources: 1 });
    expect(r.links).toMatchObject({ distinct: 2, stored: 2, missingTargets: ['people/nobody'] });
    expect(r.ok).toBe(false);
  });

  it('names a page and a sidecar that no longer render to their files, though nothing was written', async () => {
    const r = await importBrain(ctx, dir, {
      // Between writing and validating: one card's text and another's raw data changed behind the import.
      afterWrite: async () => {
        await brain().admin.query("UPDATE homelab.topics SET body = body || ' Edited.' WHERE slug = 'concepts/alpha'");
        await brain().admin.query("UPDATE homelab.raw_data SET data = '{\"size\":4}' WHERE topic_id = (SELECT id FROM homelab.topics WHERE slug = 'concepts/zulu')");
      },
    });
    expect(r.pages).toMatchObject({ unchanged: 3, created: 0, updated: 0, stored: 3 });
    expect(r.contentCheck.checked).toBe(4);
    expect(r.contentCheck.identical).toBe(2);
    expect(r.contentCheck.different.sort()).toEqual(['concepts/.raw/zulu.json', 'concepts/alpha.md']);
    expect(r.links.missingTargets).toEqual(['people/nobody']);
  });
});
