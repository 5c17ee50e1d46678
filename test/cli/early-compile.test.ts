// Which commands start compiling Postgres before they load (cli/early-compile.ts): one-shot
// commands that open the embedded brain, not in server mode, not when a running brain would
// answer them; and the dispatcher really starts it, for such a command only.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands/index.js';
import { compilesEarly, OPENS_THE_BRAIN } from '../../cli/early-compile.js';

describe('compiling Postgres before the command loads', () => {
  const none = () => false;

  it('one-shot commands that open the brain do; servers, batch and other commands do not', () => {
    for (const name of ['search', 'query', 'get', 'list', 'remember', 'call', 'timeline-add']) expect(compilesEarly(name, {}, none), name).toBe(true);
    for (const name of ['serve', 'up', 'import', 'init', 'version', 'doctor', 'down', 'config', 'nosuch']) expect(compilesEarly(name, {}, none), name).toBe(false);
  });

  it('not with a Postgres server, nor when BRAIN_HOME/running.json says a brain runs', () => {
    expect(compilesEarly('search', { BRAIN_DATABASE_URL: 'postgres://127.0.0.1:5432/brain' }, none)).toBe(false);
    const seen: string[] = [];
    const running = (path: string) => {
      seen.push(path);
      return true;
    };
    expect(compilesEarly('search', { BRAIN_HOME: '/srv/brain' }, running)).toBe(false);
    expect(compilesEarly('search', { BRAIN_HOME: '' }, running)).toBe(false);
    // An empty BRAIN_HOME is unset, as loadRuntimeConfig reads it: ./.brain.
    expect(seen).toEqual(['/srv/brain/running.json', resolve('.brain', 'running.json')]);
  });

  it('names only commands that exist', () => {
    expect(OPENS_THE_BRAIN.size).toBeGreaterThan(10);
    for (const name of OPENS_THE_BRAIN) expect(Object.hasOwn(commands, name), name).toBe(true);
  });

  describe('through the dispatcher', () => {
    const home = mkdtempSync(join(tmpdir(), 'brain-early-'));
    afterAll(() => rmSync(home, { recursive: true, force: true }));
    // A preload that reports whether a worker thread was started: the compile runs on one
    // (db/postgres-wasm.ts), and nothing else starts one before a command opens the brain.
    const probe = join(home, 'probe.cjs');
    writeFileSync(probe, "const wt = require('node:worker_threads'); const W = wt.Worker; wt.Worker = class extends W { constructor(...a) { process.stderr.write('WORKER STARTED\\n'); super(...a); } };\n");

    function run(args: string[], env: Record<string, string> = {}) {
      const r = spawnSync(process.execPath, ['--require', probe, resolve('dist/cli/brain.js'), ...args], {
        env: { PATH: process.env.PATH, HOME: home, BRAIN_HOME: join(home, 'brain'), BRAIN_CODE_CACHE: 'off', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return r.stderr;
    }

    it('starts it before the command loads, so even a command refused at once has started it; not for --help, nor with a brain running', () => {
      // An unknown subject is refused before anything opens the brain: a worker means the early start.
      const refused = run(['get', 'some-card', '--subject', 'nosuch']);
      expect(refused).toMatch(/nosuch/);
      expect(refused).toContain('WORKER STARTED');
      expect(run(['get', '--help'])).not.toContain('WORKER STARTED');
      expect(run(['version'])).not.toContain('WORKER STARTED');
      mkdirSync(join(home, 'brain'), { recursive: true });
      writeFileSync(join(home, 'brain', 'running.json'), '{}');
      const withRunning = run(['get', 'some-card', '--subject', 'nosuch']);
      expect(withRunning).toMatch(/nosuch/);
      expect(withRunning).not.toContain('WORKER STARTED');
    }, 120_000);
  });
});
