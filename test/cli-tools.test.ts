// The tool surface from the command line, run as a user would (child processes on an
// embedded brain): remember, search, call, pipe (JSONL), --tools-json, lint.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrain, scratchConfigDir } from './support/cli.js';

describe('[pglite] brain CLI: remember, search, call, pipe, tools, lint', () => {
  let env: Record<string, string>;
  let home: string;
  let configDir: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-cli-'));
    configDir = scratchConfigDir();
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none', BRAIN_SUBJECT: 'homelab' };
    expect(runBrain(['init'], env).code).toBe(0);
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('remember reads the body from stdin; --json gives the decision', () => {
    const r = runBrain(['remember', '--kind', 'tool', '--title', 'psycopg3', '--tag', 'python', '--json'], env, 'Pools and pipelines.');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'created-island', card: { subject: 'homelab', slug: 'tool/psycopg3', body: 'Pools and pipelines.' } });
    const bad = runBrain(['remember', '--kind', 'gadget', '--title', 'x'], env, '');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('unknown_kind');
  });

  it('search prints markdown hits; --json the structured result', () => {
    const r = runBrain(['search', 'pipelines'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('homelab:tool/psycopg3');
    const j = JSON.parse(runBrain(['query', 'psycopg3 pools', '--json'], env).stdout) as { hits: { slug: string; subject: string }[] };
    expect(j.hits[0]).toMatchObject({ subject: 'homelab', slug: 'tool/psycopg3' });
  });

  it('call runs one tool; a tool error exits 1', () => {
    const r = runBrain(['call', 'get', '{"slug":"tool/psycopg3","include":["tags"]}'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Tags: python');
    expect(runBrain(['call', 'get', '{"slug":"none/such"}'], env).code).toBe(1);
    expect(runBrain(['call', 'get', '{not json'], env).code).toBe(2);
  });

  it('pipe answers one JSON line per request', () => {
    const input = [
      JSON.stringify({ id: 'a', tool: 'list', args: { what: 'kinds' } }),
      'not json',
      JSON.stringify({ id: 'c', tool: 'record', args: { kind: 'deploy', date: '2026-11-29', title: 'Pipe deploy', topics: ['tool/psycopg3'] } }),
      JSON.stringify({ id: 'd', tool: 'nope', args: {} }),
    ].join('\n');
    const r = runBrain(['pipe'], env, `${input}\n`);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; ok: boolean; text?: string });
    expect(lines.map((l) => [l.id, l.ok])).toEqual([
      ['a', true],
      [2, false],
      ['c', true],
      ['d', false],
    ]);
    expect(lines[2]!.text).toContain('Pipe deploy');
    expect(r.code).toBe(1);
  });

  it('--tools-json lists every tool with its input schema', () => {
    const r = runBrain(['--tools-json'], env);
    expect(r.code, r.stderr).toBe(0);
    const tools = JSON.parse(r.stdout) as { name: string; input_schema: { type: string } }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'get', 'remember', 'record', 'propose', 'commit', 'lint', 'upcast']));
    expect(tools.every((t) => t.input_schema.type === 'object')).toBe(true);
  });

  it('lint prints the report', () => {
    const r = runBrain(['lint'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('# Lint of homelab');
  });

  // One-shot commands run no embedding worker: what they write waits for a server or for
  // `brain embed`, and they say so (on stderr, so --json output stays clean).
  it('a command that writes says which cards wait to be embedded, and brain embed clears them', { timeout: 180_000 }, () => {
    const offline = { ...env, BRAIN_EMBEDDER: 'offline' };
    const wrote = runBrain(['remember', '--kind', 'tool', '--title', 'restic', '--json'], offline, 'Encrypted, deduplicated backups.');
    expect(wrote.code, wrote.stderr).toBe(0);
    expect(JSON.parse(wrote.stdout)).toMatchObject({ card: { slug: 'tool/restic' } });
    // restic, and the cards the tests above wrote with no embedder.
    expect(wrote.stderr).toMatch(/^Note: [3-9] cards of homelab wait to be embedded \(use-lite-512\); until then search finds them by keyword\./);
    expect(wrote.stderr).toContain('brain embed --stale --subject homelab');
    // Reading says nothing about it.
    expect(runBrain(['search', 'restic'], offline).stderr).not.toContain('wait to be embedded');
    const embedded = runBrain(['embed', '--stale'], offline);
    expect(embedded.code, embedded.stderr).toBe(0);
    const again = runBrain(['remember', '--kind', 'tool', '--title', 'borgmatic'], offline, 'Borg with a config file.');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Note: 1 card of homelab waits to be embedded');
  });
});
