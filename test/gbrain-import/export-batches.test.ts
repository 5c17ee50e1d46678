// Export renders and writes a subject in batches of cards (services/gbrain/export.ts): the
// files, their bytes and the report are the same whatever the batch, new cards' paths
// included, which must avoid every imported page and stored file and each other across
// batches.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { exportBrain } from '../../services/gbrain/export.js';
import { importBrain } from '../../services/gbrain/import.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { compareTrees, listFiles, scratchBrain, tempDirs } from './files.js';

const { make: tempDir, keep } = tempDirs();

describeOn('pglite', 'GBrain export in batches', (brain) => {
  let ctx: BrainContext;
  let src: string;

  beforeAll(async () => {
    ctx = await contextFor(brain(), 'homelab');
    src = await scratchBrain();
    keep(src);
    expect((await importBrain(ctx, src)).failed).toEqual([]);
    // New cards whose natural paths are taken: by an imported page, and by each other.
    await createTopic(ctx, { slug: 'pedro-franceschi', kind: 'person', title: 'Pedro again', body: 'A namesake.' });
    await createTopic(ctx, { slug: 'people/pedro-franceschi-2', kind: 'person', title: 'Pedro the second', body: 'Another one.' });
    await createTopic(ctx, { slug: 'zz-last', kind: 'person', title: 'Last', body: 'Sorted last.' });
  });

  it('writes the same files, byte for byte, and the same report one card at a time as all at once', async () => {
    const whole = await tempDir('gbrain-out-whole-');
    const single = await tempDir('gbrain-out-single-');
    const a = await exportBrain(ctx, whole, { batch: 100_000 });
    const b = await exportBrain(ctx, single, { batch: 1 });
    const files = await listFiles(whole);
    expect(files.length).toBe((await listFiles(src)).length + 3);
    expect(await compareTrees(whole, single)).toEqual({ onlyA: [], onlyB: [], different: [] });
    expect({ ...b, dir: '', seconds: 0 }).toEqual({ ...a, dir: '', seconds: 0 });
    expect(a.pages.new).toBe(3);
    expect(a.problems).toEqual([]);
    // The imported page keeps its path; the new cards take the next free ones, in slug order.
    const diff = await compareTrees(src, whole);
    expect(diff.different).toEqual([]);
    expect(diff.onlyA).toEqual([]);
    expect(diff.onlyB.sort()).toEqual(['people/pedro-franceschi-2-2.md', 'people/pedro-franceschi-2.md', 'people/zz-last.md']);
    expect(await readFile(join(single, 'people/pedro-franceschi-2.md'), 'utf8')).toContain('A namesake.');
    expect(await readFile(join(single, 'people/pedro-franceschi-2-2.md'), 'utf8')).toContain('Another one.');
  });
});
