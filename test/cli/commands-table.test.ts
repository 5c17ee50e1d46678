// The command table loads each command's module only when it runs: `brain --help` and
// `brain version` must not load zod, YAML, the database, the MCP server or the embedder,
// and the summaries the table prints must be the modules' own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands, loadCommand } from '../../cli/commands/index.js';
import { PACKAGE_ROOT } from '../../config/package.js';
import { BRAIN_JS } from '../support/cli.js';

const HEAVY = ['zod', 'yaml', 'kysely', 'pino', 'fastify', 'pg', '@electric-sql', '@modelcontextprotocol', '@energetic-ai'];

describe('brain command table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brain-table-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every lazy entry prints the summary its module declares', async () => {
    for (const [name, entry] of Object.entries(commands)) {
      const command = await loadCommand(entry);
      expect(command.summary, `summary of "${name}" in cli/commands/index.ts`).toBe(entry.summary);
      expect(command.usage.length, name).toBeGreaterThan(0);
    }
  });

  it.each([['--help'], ['version']])('brain %s loads no heavy module and never touches the brain home', (arg) => {
    const trace = join(dir, `trace-${arg.replace(/-/g, '')}.txt`);
    const home = join(dir, 'home');
    const r = spawnSync(process.execPath, ['--import', join(PACKAGE_ROOT, 'test/support/trace-reads.mjs'), BRAIN_JS, arg], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', BRAIN_TRACE_FILE: trace, BRAIN_HOME: home },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(arg === 'version' ? /^claude-brain \d+\.\d+\.\d+/ : /Commands:\n {2}backup/);
    const touched = readFileSync(trace, 'utf8').split('\n');
    const heavy = touched.filter((p) => HEAVY.some((m) => p.includes(`/node_modules/${m}/`)));
    expect([...new Set(heavy)]).toEqual([]);
    expect(touched.filter((p) => p.startsWith(home))).toEqual([]);
  });
});
