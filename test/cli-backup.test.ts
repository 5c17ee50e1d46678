// `brain backup` and `brain restore FILE` as a user runs them, on the embedded brain:
// the backup file is private, and restoring it into a fresh brain brings the cards back.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBrain, scratchConfigDir } from './support/cli.js';

describe('[pglite] brain backup and brain restore (CLI)', () => {
  const dirs: string[] = [];
  const temp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('backs up every subject and restores into an empty brain, refusing a full one', { timeout: 300_000 }, () => {
    const configDir = scratchConfigDir();
    dirs.push(configDir);
    const one = { BRAIN_HOME: temp('brain-a-'), BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none', BRAIN_SUBJECT: 'homelab' };
    expect(runBrain(['remember', '--kind', 'environment', '--title', 'NAS', '--slug', 'env/nas'], one, 'ZFS mirror').code).toBe(0);
    const file = join(temp('brain-bk-'), 'b.jsonl.gz');
    const b = runBrain(['backup', '--out', file, '--json'], one);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).subjects).toEqual(['personal', 'homelab', 'novel', 'book']);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const two = { ...one, BRAIN_HOME: temp('brain-b-') };
    const r = runBrain(['restore', file], two);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Restored \d+ rows into personal, homelab, novel, book/);
    const got = runBrain(['get', 'env/nas', '--json'], two);
    expect(JSON.parse(got.stdout)).toMatchObject({ slug: 'env/nas', body: 'ZFS mirror' });
    const again = runBrain(['restore', file], two);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('not empty');
  });
});
