// `brain text-search`: shows the language, changes it with a reindex of every subject (so a
// query stemmed the new way finds cards written the old way), reindexes in place, and refuses
// a language the database does not have, listing those it has. Embedded brain, temporary home.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrain, scratchConfigDir } from '../support/cli.js';

describe('[pglite] brain text-search', { timeout: 240_000 }, () => {
  let home: string;
  let configDir: string;
  let env: Record<string, string>;
  const brain = (args: string[], input?: string) => runBrain(args, env, input);

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    configDir = scratchConfigDir();
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_SUBJECT: 'homelab', BRAIN_EMBEDDER: 'none' };
    const init = brain(['init']);
    expect(init.code, init.stderr).toBe(0);
    const put = brain(['put', 'notes/running', '--kind', 'concept'], '---\ntitle: Running notes\n---\nThe nightly jobs were running late.\n');
    expect(put.code, put.stderr).toBe(0);
  }, 240_000);
  afterAll(() => {
    for (const d of [home, configDir]) rmSync(d, { recursive: true, force: true });
  });

  it('shows english by default with the configurations the database has', () => {
    const r = brain(['text-search', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { config: string; available: string[] };
    expect(shown.config).toBe('english');
    expect(shown.available).toEqual(expect.arrayContaining(['english', 'german', 'simple']));
  });

  it('a new language reindexes every subject in one step; --reindex redoes it in place', () => {
    // english stems "running" to "run"; simple keeps the word as written.
    expect(brain(['search', 'run', '--json']).stdout).toContain('notes/running');
    const set = brain(['text-search', 'simple', '--json']);
    expect(set.code, set.stderr).toBe(0);
    const report = JSON.parse(set.stdout) as { config: string; previous: string; reindexed: { subject: string; topics: number }[] };
    expect(report).toMatchObject({ config: 'simple', previous: 'english' });
    expect(report.reindexed.map((s) => s.subject).sort()).toEqual(['book', 'homelab', 'novel', 'personal']);
    expect(report.reindexed.find((s) => s.subject === 'homelab')!.topics).toBe(1);
    expect(brain(['search', 'run', '--json']).stdout).not.toContain('notes/running');
    expect(brain(['search', 'running', '--json']).stdout).toContain('notes/running');

    const again = brain(['text-search', '--reindex']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Reindexed .*homelab 1 card, 0 episodes/);
    expect(brain(['text-search']).stdout).toMatch(/^Text search: simple\./);
  });

  it('refuses a language the database lacks, naming those it has, and changes nothing', () => {
    const r = brain(['text-search', 'klingon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"klingon" is not a text-search configuration of this database; it has: .*english/);
    expect(brain(['text-search', 'german', '--reindex']).code).toBe(2);
    expect(brain(['text-search']).stdout).toMatch(/^Text search: simple\./);
  });
});
