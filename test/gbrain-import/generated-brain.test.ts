// A generated GBrain brain (bench/gbrain/generate.ts) imported into the embedded brain and
// exported again: every file identical, and a second import changes nothing, at the size
// of the brain the GBrain spec migrates (7,500 pages; about a minute on a quiet 2-core
// machine). `node dist/bench/gbrain/import-export.js` measures the same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateBrain, type GenerateStats } from '../../bench/gbrain/generate.js';
import { exportBrain } from '../../services/gbrain/export.js';
import { importBrain } from '../../services/gbrain/import.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { compareTrees } from './files.js';

const PAGES = 7500;

describeOn('pglite', `a generated ${PAGES}-page GBrain brain`, (brain) => {
  let root: string;
  let stats: GenerateStats;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'gbrain-gen-'));
    stats = await generateBrain(join(root, 'src'), { pages: PAGES, seed: 7 });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('imports, exports byte for byte, and re-imports with zero changes', { timeout: 1_200_000 }, async () => {
    const ctx = await contextFor(brain(), 'book');
    const first = await importBrain(ctx, join(root, 'src'));
    expect(first.failed).toEqual([]);
    expect(first.pages).toMatchObject({ found: PAGES, created: PAGES, stored: PAGES });
    expect(first.links.parsed).toBe(stats.links);
    expect(first.links.stored).toBe(first.links.distinct);
    expect(first.timeline).toEqual({ entries: stats.timelineEntries, episodes: stats.timelineEntries });
    expect(first.sidecars.stored).toBe(stats.sidecars);
    expect(first.contentCheck.different).toEqual([]);
    expect(first.ok).toBe(true);

    await exportBrain(ctx, join(root, 'out'));
    expect(await compareTrees(join(root, 'src'), join(root, 'out'))).toEqual({ onlyA: [], onlyB: [], different: [] });

    const [{ n: outbox }] = (await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM book.outbox')) as [{ n: number }];
    const again = await importBrain(ctx, join(root, 'src'));
    expect(again.pages).toMatchObject({ created: 0, updated: 0, unchanged: PAGES, failed: 0 });
    expect(again.ok).toBe(true);
    const [{ n: after }] = (await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM book.outbox')) as [{ n: number }];
    expect(after).toBe(outbox);
  });
});
