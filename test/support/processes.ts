// The built CLI as a long-running child process (brain up, brain serve), the way users and
// the compose stack run it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRAIN_JS, scratchConfigDir } from './cli.js';

export interface BrainProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
}

/** Starts `brain ARGS` and resolves once `marker` appears on stdout or stderr. */
export function startBrainProcess(args: string[], env: Record<string, string>, marker: RegExp, timeoutMs = 180_000): Promise<BrainProcess> {
  const child = spawn(process.execPath, [BRAIN_JS, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', BRAIN_VIEW_PORT: 'off', ...env } });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out waiting for ${marker}; output:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (marker.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${marker}:\n${out}`));
    });
  });
}

/** SIGTERM, then its exit code and how long it took to exit. */
export async function stopBrainProcess(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  if (child.exitCode !== null) return { code: child.exitCode, ms: 0 };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const code = await exited;
  return { code, ms: performance.now() - started };
}

/** Milliseconds from `since` until the child exits (or `limit`, then it is killed), and its exit code. */
export async function timeExit(exited: Promise<number | null>, child: ChildProcess, since: number, limit = 60_000): Promise<{ ms: number; code: number | null | 'killed' }> {
  let timer!: NodeJS.Timeout;
  const timeout = new Promise<'killed'>((resolve) => (timer = setTimeout(() => resolve('killed'), limit)));
  const code = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  const ms = Date.now() - since;
  if (code === 'killed') child.kill('SIGKILL');
  return { ms, code };
}

/**
 * `n` consecutive ports at a random base, below Linux's ephemeral range (32768-60999): there a
 * port could be the local end of any outgoing connection on the machine (a test's client, a
 * fetch), and a server's listen fails with EADDRINUSE, as a CI run of test/view/cli.test.ts did
 * on port 38148.
 */
export function freePorts(n: number): number[] {
  const base = 20000 + Math.floor(Math.random() * (12000 - n));
  return Array.from({ length: n }, (_, i) => base + i);
}

/** A temporary brain for process tests: its own BRAIN_HOME and config folder, subjects on free ports. */
export interface ScratchBrain {
  readonly home: string;
  readonly configDir: string;
  /** One port per subject, in the order given, then `extraPorts` more. */
  readonly ports: number[];
  /** BRAIN_HOME and BRAIN_CONFIG_DIR set to the two folders, plus what the caller added. */
  readonly env: Record<string, string>;
  /** Removes both folders. */
  remove(): void;
}

/**
 * A temporary BRAIN_HOME and a config folder (the project's kinds and deny-list) whose
 * subjects.yaml puts each of `subjects` on a free port. The brain is not initialised:
 * `runBrain(['init'], env)` does that where the test wants it.
 */
export function scratchBrain(prefix: string, subjects: readonly string[], env: Record<string, string> = {}, opts: { extraPorts?: number } = {}): ScratchBrain {
  const home = mkdtempSync(join(tmpdir(), `brain-${prefix}-`));
  const configDir = scratchConfigDir();
  const ports = freePorts(subjects.length + (opts.extraPorts ?? 0));
  writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n${subjects.map((s, i) => `  ${s}:\n    port: ${ports[i]}\n`).join('')}`);
  return {
    home,
    configDir,
    ports,
    env: { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, ...env },
    remove() {
      rmSync(home, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
