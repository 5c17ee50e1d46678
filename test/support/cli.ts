// Runs the built `brain` command as a user would: a child process with its own env.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/runtime.js';

export const BRAIN_JS = join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBrain(args: string[], env: Record<string, string>, input?: string): CliResult {
  const r = spawnSync(process.execPath, [BRAIN_JS, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    input,
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A config dir with copies of the repo's YAML files, so a test may change them freely. */
export function scratchConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'brain-config-'));
  for (const f of ['subjects.yaml', 'kinds.yaml', 'deny-list.yaml']) {
    try {
      copyFileSync(join(PACKAGE_ROOT, f), join(dir, f));
    } catch {
      /* optional file */
    }
  }
  return dir;
}
