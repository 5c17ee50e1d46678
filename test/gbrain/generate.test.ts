import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateBrain, type GenerateStats } from '../../bench/gbrain/generate.js';
import { readBrainDirectory, writeBrainDirectory, type BrainDirectory } from '../../services/gbrain/directory.js';
import { extractLinks } from '../../services/gbrain/links.js';
import { parseTimeline } from '../../services/gbrain/timeline.js';
import { listFiles } from '../../bench/gbrain/list-files.js';

let root: string;
let stats: GenerateStats;
let brain: BrainDirectory;

async function digest(dir: string): Promise<string> {
  const h = createHash('sha256');
  for (const f of await listFiles(dir)) h.update(f).update('\0').update(await readFile(join(dir, f))).update('\0');
  return h.digest('hex');
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'gbrain-gen-'));
  stats = await generateBrain(join(root, 'a'), { pages: 300, seed: 42 });
  brain = await readBrainDirectory(join(root, 'a'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('generateBrain', () => {
  it('generates the asked-for mix', () => {
    expect(stats.pages).toBe(300);
    expect(stats.sidecars).toBeGreaterThan(300 * 0.06);
    expect(stats.sidecars).toBeLessThan(300 * 0.2);
    expect(stats.crlf).toBeGreaterThan(0);
    expect(stats.bom).toBeGreaterThan(0);
    expect(stats.missingLinks).toBeGreaterThan(0);
    expect(brain.pages).toHaveLength(300);
    expect(brain.sidecars).toHaveLength(stats.sidecars);
    expect(brain.specials.map((s) => s.relPath)).toEqual(['index.md', 'log.md', 'schema.md']);
    expect(brain.ingestLog.length).toBeGreaterThan(0);
    expect(brain.problems).toEqual([]);
  });

  it('is read back as generated: timeline entries and links', () => {
    expect(brain.pages.reduce((n, p) => n + parseTimeline(p.timeline).length, 0)).toBe(stats.timelineEntries);
    expect(brain.pages.reduce((n, p) => n + extractLinks(`${p.compiledTruth}\n${p.timeline}`, p.slug).length, 0)).toBe(stats.links);
    expect(brain.pages.filter((p) => p.lineEnding === 'crlf')).toHaveLength(stats.crlf);
    expect(brain.pages.filter((p) => p.raw.bom)).toHaveLength(stats.bom);
  });

  it('round-trips byte for byte through readBrainDirectory/writeBrainDirectory', async () => {
    await writeBrainDirectory(join(root, 'copy'), brain.pages, brain.specials, brain.sidecars);
    const files = await listFiles(join(root, 'a'));
    expect(await listFiles(join(root, 'copy'))).toEqual(files);
    for (const f of files) {
      const same = (await readFile(join(root, 'copy', f))).equals(await readFile(join(root, 'a', f)));
      expect(same, f).toBe(true);
    }
  });

  it('is deterministic for a seed', async () => {
    await generateBrain(join(root, 'b'), { pages: 300, seed: 42 });
    expect(await digest(join(root, 'b'))).toBe(await digest(join(root, 'a')));
    await generateBrain(join(root, 'c'), { pages: 300, seed: 43 });
    expect(await digest(join(root, 'c'))).not.toBe(await digest(join(root, 'a')));
  });
});
