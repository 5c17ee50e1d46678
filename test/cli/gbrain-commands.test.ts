// The brain CLI's knowledge commands, run as a user runs them: the built command in a
// child process, an embedded brain in a temporary BRAIN_HOME. Checks output, --json and
// exit codes (0 ok, 1 failed, 2 usage, 3 not found).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTrees, scratchBrain } from '../gbrain-import/files.js';
import { runBrain, scratchConfigDir } from '../support/cli.js';

describe('[pglite] brain knowledge commands (CLI, embedded brain)', { timeout: 240_000 }, () => {
  let home: string;
  let configDir: string;
  let work: string;
  let src: string;
  let env: Record<string, string>;
  const brain = (args: string[], input?: string, extra: Record<string, string> = {}) => runBrain(args, { ...env, ...extra }, input);
  const json = <T = any>(args: string[], input?: string): T => {
    const r = brain([...args, '--json'], input);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    work = mkdtempSync(join(tmpdir(), 'brain-work-'));
    configDir = scratchConfigDir();
    src = await scratchBrain();
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_SUBJECT: 'homelab' };
  });
  afterAll(() => {
    for (const d of [home, work, configDir, src]) rmSync(d, { recursive: true, force: true });
  });

  it('import reports and validates, with progress on stderr; a second import changes nothing; export gives the same bytes', async () => {
    const r = brain(['import', src]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ content hash');
    expect(r.stdout).toMatch(/pages: +17 found, 17 created/);
    expect(r.stderr).toMatch(/import: \d+\/\d+ files/); // not a TTY: plain lines
    // The import analysed what it wrote before validating it (the embedded brain has no
    // autovacuum): the planner has statistics for the new cards, timeline and links.
    expect(await analysedTables(join(home, 'data'))).toEqual(expect.arrayContaining(['episode_topics', 'episodes', 'gbrain_pages', 'links', 'topics']));
    const again = json(['import', src, '--quiet']);
    expect(again.pages).toMatchObject({ created: 0, updated: 0, unchanged: 17, failed: 0 });
    expect(again.ok).toBe(true);

    const out = join(work, 'export');
    const exported = brain(['export', '--dir', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await compareTrees(src, out)).toEqual({ onlyA: [], onlyB: [], different: [] });
    const refused = brain(['export', '--dir', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not empty');
    expect(refused.stderr).toContain('hint: ');
  });

  it('get prints the page byte for byte, --json the card; a missing card is exit 3 with a hint', () => {
    const page = brain(['get', 'people/pedro-franceschi']);
    expect(page.code).toBe(0);
    expect(page.stdout).toBe(readFileSync(join(src, 'people/pedro-franceschi.md'), 'utf8'));
    const card = json(['get', 'people/pedro-franceschi']);
    expect(card).toMatchObject({ subject: 'homelab', kind: 'person', title: 'Pedro Franceschi', tags: ['fintech', 'founder', 'yc-alum'] });
    expect(card.timelineEntries).toHaveLength(3);
    const missing = brain(['get', 'people/nobody']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('brain: no topic "people/nobody" in homelab\n  hint: Search first (search tool) to find the right slug, or create the card.\n');
    expect(brain(['get']).code).toBe(2);
    expect(brain(['get', 'x', '--bogus']).code).toBe(2);
  });

  it('put creates a card from a page on stdin; timeline-add, tags, links and backlinks work on it', () => {
    const page = '---\ntitle: Ada Lovelace\ntags: [math]\n---\n\n# Ada Lovelace\n\nWrote about [Brex](../companies/brex.md)?\n\n---\n\n- **1843-09-01** | article — Published the notes.\n';
    const put = json(['put', 'people/ada-lovelace'], page);
    expect(put).toMatchObject({ action: 'created', episodesAdded: 1, links: 1, topic: { kind: 'person', title: 'Ada Lovelace' } });
    expect(brain(['put', 'ada'], 'no kind here').code).toBe(2); // no kind: usage error listing kinds

    const added = brain(['timeline-add', 'people/ada-lovelace', '--date', '1852-11-27', '--summary', 'Died in London', '--source', 'manual']);
    expect(added.code, added.stderr).toBe(0);
    const timeline = brain(['timeline', 'people/ada-lovelace']);
    expect(timeline.stdout).toBe('- **1852-11-27** | manual — Died in London\n- **1843-09-01** | article — Published the notes.\n');
    expect(brain(['get', 'people/ada-lovelace']).stdout).toContain('---\n\n- **1852-11-27** | manual — Died in London\n- **1843-09-01** | article — Published the notes.\n');
    expect(brain(['timeline-add', 'people/ada-lovelace', '--date', '1852-02-30', '--summary', 'x']).code).toBe(2);

    expect(brain(['tag', 'people/ada-lovelace', 'computing', 'poet']).stdout).toBe('people/ada-lovelace: computing, math, poet\n');
    expect(json(['untag', 'people/ada-lovelace', 'poet'])).toEqual({ slug: 'people/ada-lovelace', tags: ['computing', 'math'] });
    expect(brain(['tags', 'people/ada-lovelace']).stdout).toBe('computing\nmath\n');

    expect(brain(['link', 'people/ada-lovelace', 'people/pedro-franceschi', '--context', 'Both founders', '--relation', 'relates-to']).code).toBe(0);
    const back = json(['backlinks', 'people/pedro-franceschi']);
    expect(back).toEqual(expect.arrayContaining([expect.objectContaining({ fromSlug: 'people/ada-lovelace', relation: 'relates-to', context: 'Both founders' })]));
    expect(brain(['unlink', 'people/ada-lovelace', 'people/pedro-franceschi']).code).toBe(0);
    expect(brain(['unlink', 'people/ada-lovelace', 'people/pedro-franceschi']).code).toBe(3);
    expect(brain(['link', 'a', 'b', '--relation', 'likes']).code).toBe(2);
  });

  it('list filters, stats counts, history and restore undo a put', () => {
    const people = json<{ slug: string }[]>(['list', '--kind', 'person']);
    expect(people.map((p) => p.slug).sort()).toEqual(['people/ada-lovelace', 'people/crlf-person', 'people/pedro-franceschi', 'people/zoë-müller']);
    expect(json<unknown[]>(['list', '--tag', 'windows'])).toHaveLength(1);
    // Another subject is another brain: personal has none of homelab's cards.
    expect(brain(['list', '--subject', 'personal']).stdout).toBe('No cards.\n');
    const stats = json(['stats']);
    expect(stats).toMatchObject({ subject: 'homelab', topics: 18, importedPages: 17 });
    expect(stats.byKind.person).toBe(4);

    expect(json(['put', 'people/ada-lovelace', '--title', 'Augusta Ada King'], '# Ada\n\nRewritten.\n')).toMatchObject({ action: 'updated' });
    // Versions are numbered per card; the one before the put is the one to put back.
    const h = json<{ total: number; versions: { version: number; current: boolean }[] }>(['history', 'people/ada-lovelace']);
    expect(h.total).toBeGreaterThan(1);
    expect(h.versions[0]).toMatchObject({ version: h.total, current: true });
    const shown = brain(['history', 'people/ada-lovelace']);
    expect(shown.stdout).toContain(`v${h.total} (current)`);
    expect(shown.stdout).toContain('title: Ada Lovelace → Augusta Ada King');
    expect(shown.stdout).toContain('Put one back: brain restore people/ada-lovelace vN');
    const restored = brain(['restore', 'people/ada-lovelace', `v${h.total - 1}`]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toBe(`Restored homelab:people/ada-lovelace to v${h.total - 1}; that is now v${h.total + 1}.\n`);
    expect(json(['get', 'people/ada-lovelace']).title).toBe('Ada Lovelace');
    expect(brain(['restore', 'people/ada-lovelace', 'v999']).code).toBe(3);
    expect(brain(['restore', 'people/ada-lovelace', 'v0']).code).toBe(2);
    const missing = brain(['history', 'people/nobody']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('does not exist');
  });

  it('ingest stores a document once and prints its id; kinds and config print the vocabulary and no secrets', () => {
    const file = join(work, 'notes.md');
    writeFileSync(file, '# Meeting notes\n\nAgreed on the plan.\n');
    const first = brain(['ingest', file, '--type', 'meeting']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\d+\n$/);
    const again = json(['ingest', file, '--type', 'meeting']);
    expect(again).toMatchObject({ documentId: Number(first.stdout), created: false });
    expect(brain(['ingest', file, '--type', 'tweet']).code).toBe(2);
    expect(brain(['ingest', join(work, 'missing.md')]).code).toBe(2);

    const kinds = json<{ name: string; class: string; gbrainDirectories: string[] }[]>(['kinds']);
    expect(kinds.find((k) => k.name === 'source')).toMatchObject({ class: 'topic', gbrainDirectories: ['sources', 'meetings', 'programs'] });
    expect(kinds.find((k) => k.name === 'meeting')?.class).toBe('episode');

    const config = brain(['config', '--json'], undefined, { BRAIN_ADMIN_URL: 'postgres://admin:hunter2@localhost/db' });
    expect(config.code).toBe(0);
    expect(config.stdout).not.toContain('hunter2');
    expect(JSON.parse(config.stdout)).toMatchObject({ mode: 'embedded', subject: 'homelab', adminUrl: '(set; not shown)' });
  });

  it('import into personal refuses deny-listed pages by name and writes nothing for them; upcast needs a reason', async () => {
    const dir = join(work, 'personal-brain');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'people'), { recursive: true });
    writeFileSync(join(dir, 'people/clean.md'), '---\ntitle: Clean\n---\n\nNothing to see.\n');
    writeFileSync(join(dir, 'people/leaky.md'), '---\ntitle: Leaky\n---\n\nMail me at someone@corp-mail.com.\n');
    writeFileSync(join(dir, 'people/homelab-host.md'), '---\ntitle: Host\n---\n\nRuns on nas01 in the rack.\n');
    const r = brain(['import', dir, '--subject', 'personal', '--json', '--quiet']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.pages).toMatchObject({ found: 3, created: 1, failed: 2 });
    expect(report.failed.map((f: { path: string }) => f.path).sort()).toEqual(['people/homelab-host.md', 'people/leaky.md']);
    expect(report.failed.find((f: { path: string }) => f.path === 'people/leaky.md').reason).toContain('deny-list');
    expect(brain(['get', 'people/leaky', '--subject', 'personal']).code).toBe(3);
    expect(json<unknown[]>(['list', '--subject', 'personal']).length).toBe(1);

    expect(brain(['upcast', 'people/zoë-müller']).code).toBe(2);
    const up = json(['upcast', 'people/zoë-müller', '--reason', 'a person worth knowing everywhere']);
    // The personal slug comes from the kind and the title, never from the project card's slug.
    expect(up).toMatchObject({ action: 'created', personal: { slug: 'person/zoe-muller' } });
  });

  it('imports an MCP memory server memory.json: entities, observations, relations', () => {
    const file = join(work, 'memory.json');
    writeFileSync(
      file,
      [
        '{"type":"entity","name":"Grace Hopper","entityType":"person","observations":["Wrote the first compiler","Rear admiral"]}',
        '{"type":"entity","name":"COBOL","entityType":"programming_language","observations":["Business language"]}',
        '{"type":"entity","name":"Navy","entityType":"organization","observations":[]}',
        '{"type":"relation","from":"Grace Hopper","to":"COBOL","relationType":"influenced"}',
        '{"type":"relation","from":"Grace Hopper","to":"Navy","relationType":"served_in"}',
      ].join('\n'),
    );
    const r = json(['import', '--from', 'mcp-memory', file, '--subject', 'novel']);
    expect(r).toMatchObject({ entities: 3, relations: 2, topics: { created: 3, failed: 0 }, links: { stored: 2 } });
    const grace = json(['get', 'person/grace-hopper', '--subject', 'novel']);
    expect(grace).toMatchObject({ kind: 'person', title: 'Grace Hopper', body: '- Wrote the first compiler\n- Rear admiral' });
    expect(grace.links).toEqual([
      expect.objectContaining({ toSlug: 'organization/navy', relation: 'relates-to', context: 'Grace Hopper served_in Navy' }),
      expect.objectContaining({ toSlug: 'programming-language/cobol', context: 'Grace Hopper influenced COBOL' }),
    ]);
    expect(json(['get', 'organization/navy', '--subject', 'novel']).kind).toBe('company');
    expect(json(['get', 'programming-language/cobol', '--subject', 'novel']).kind).toBe('concept');
    const again = json(['import', '--from', 'mcp-memory', file, '--subject', 'novel']);
    expect(again.topics).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    expect(brain(['import', '--from', 'elsewhere', file]).code).toBe(2);
  });

  it('archive hides a card until unarchive; merge folds one card into another; source cites a document', () => {
    const archived = brain(['archive', 'people/crlf-person', '--reason', 'not needed']);
    expect(archived.code, archived.stderr).toBe(0);
    expect(archived.stdout).toMatch(/^Archived homelab:people\/crlf-person \(now v\d+\)\.\n$/);
    const hidden = brain(['get', 'people/crlf-person']);
    expect(hidden.code).toBe(3);
    expect(hidden.stderr).toContain('homelab:people/crlf-person is archived');
    expect(hidden.stderr).toContain('brain unarchive people/crlf-person');
    expect(json<{ slug: string }[]>(['list', '--kind', 'person']).map((p) => p.slug)).not.toContain('people/crlf-person');
    expect(brain(['archive', 'people/crlf-person']).stdout).toContain('was already archived; nothing changed');
    expect(brain(['unarchive', 'people/crlf-person']).stdout).toMatch(/^Unarchived homelab:people\/crlf-person \(now v\d+\)\.\n$/);
    expect(json<{ slug: string }[]>(['list', '--kind', 'person']).map((p) => p.slug)).toContain('people/crlf-person');

    const merged = json(['merge', 'people/zoë-müller', 'people/pedro-franceschi', '--reason', 'one person in this test']);
    expect(merged).toMatchObject({ from: 'people/zoë-müller', into: 'people/pedro-franceschi', body: 'appended' });
    const gone = brain(['get', 'people/zoë-müller']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('was merged into homelab:people/pedro-franceschi');
    expect(brain(['merge', 'people/zoë-müller', 'people/pedro-franceschi']).code).toBe(1);
    expect(brain(['merge', 'people/pedro-franceschi']).code).toBe(2);

    const file = join(work, 'call.md');
    writeFileSync(file, '# Call\n\nPedro said so.\n');
    const cited = brain(['source', 'people/pedro-franceschi', '--file', file, '--title', 'Call notes', '--locator', 'para 2', '--quote', 'Pedro said so.']);
    expect(cited.code, cited.stderr).toBe(0);
    expect(cited.stdout).toMatch(/^Cited document \d+ \(stored now\) as a source of homelab:people\/pedro-franceschi\.\n$/);
    expect(brain(['source', 'people/pedro-franceschi']).stdout).toMatch(/^- document \d+ "Call notes" @ para 2 — "Pedro said so\."\n$/);
    expect(json<{ sources: unknown[] }>(['get', 'people/pedro-franceschi']).sources).toHaveLength(1);
    expect(brain(['source', 'people/pedro-franceschi', '--quote', 'x']).code).toBe(2);
  });
});

/** The subject tables of homelab with planner statistics, read from a copy of the closed brain's files. */
async function analysedTables(dataDir: string): Promise<string[]> {
  const copy = mkdtempSync(join(tmpdir(), 'brain-stats-'));
  try {
    cpSync(dataDir, copy, { recursive: true });
    const pg = await PGlite.create(copy);
    try {
      const { rows } = await pg.query<{ t: string }>(
        `SELECT DISTINCT c.relname AS t FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
          WHERE c.relnamespace = 'homelab'::regnamespace ORDER BY 1`,
      );
      return rows.map((r) => r.t);
    } finally {
      await pg.close();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
