// The README's first command on a fresh clone: `npm install` (here `npm ci`, from the lock)
// builds dist/ once through the prepare script; `npm start` then starts from it without
// running tsc, the first time (a new brain) and the second (a warm data directory). The
// banner's own start time is printed; bench/cli/latency.ts measures it against the target.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { scratchConfigDir } from '../support/cli.js';
import { freePorts } from '../support/processes.js';

const isCheckout = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).stdout.trim() === 'true';

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** `npm start` in `dir` as a process group of its own (npm, then node), resolved at `marker`. */
function npmStart(dir: string, env: NodeJS.ProcessEnv, marker: RegExp): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: dir, env, detached: true });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start: timed out waiting for ${marker}:\n${out}`)), 300_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!marker.test(out)) return;
      clearTimeout(timer);
      resolve({ child, output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before ${marker}:\n${out}`));
    });
  });
}

async function stop(s: Started): Promise<void> {
  // Ended already (killed by a signal, exitCode stays null and signalCode is set).
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  process.kill(-s.child.pid!, 'SIGTERM');
  await exited;
}

describe.skipIf(!isCheckout)('[pglite] a fresh clone: npm ci, then npm start twice', () => {
  let root: string;
  let clone: string;
  let env: NodeJS.ProcessEnv;
  const started: Started[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'brain-clone-'));
    clone = join(root, 'claude-brain');
    const cloned = spawnSync('git', ['clone', '--quiet', PACKAGE_ROOT, clone], { encoding: 'utf8' });
    expect(cloned.status, cloned.stderr).toBe(0);
    const configDir = scratchConfigDir();
    const ports = freePorts(4);
    writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n${['personal', 'homelab', 'novel', 'book'].map((s, i) => `  ${s}:\n    port: ${ports[i]}\n`).join('')}`);
    env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', BRAIN_HOME: join(root, 'home'), BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none' };
  });
  afterAll(async () => {
    for (const s of started) await stop(s).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it('npm ci builds dist/ once (the prepare script)', { timeout: 900_000 }, () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: clone, env, encoding: 'utf8', timeout: 840_000 });
    expect(install.status, install.stderr).toBe(0);
    expect(`${install.stdout}${install.stderr}`).toContain('building dist/ (dist/ has not been built');
    expect(existsSync(join(clone, 'dist', 'cli', 'brain.js'))).toBe(true);
  });

  it('the first npm start runs no tsc and sets a new brain up; the second starts it warm', { timeout: 600_000 }, async () => {
    const entry = join(clone, 'dist', 'cli', 'brain.js');
    const built = statSync(entry).mtimeMs;
    const first = await npmStart(clone, env, /The brain is open/);
    started.push(first);
    expect(first.output()).not.toContain('building dist/');
    expect(first.output()).toMatch(/claude-brain is up: embedded brain \(PGlite\)/);
    expect(first.output()).toMatch(/bootstrap \(roles, schemas, migrations/);
    await stop(first);

    const second = await npmStart(clone, env, /The brain is open/);
    started.push(second);
    const out = second.output();
    expect(out).not.toContain('building dist/');
    expect(out).toContain('bootstrap skipped');
    const banner = /Started in (\d+\.\d) s/.exec(out);
    expect(banner).not.toBeNull();
    console.log(`fresh clone, second npm start: banner "Started in ${banner![1]} s" (load average ${spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ')})`);
    await stop(second);
    expect(statSync(entry).mtimeMs).toBe(built);
  });
});
