// Processes as a person runs them: `brain ARGS` (bin/brain, which execs `node dist/cli/brain.js`,
// so the pid is Node's) spawned, timed from spawn, its memory read from /proc while it runs
// (PGlite runs inside that process, so its RSS is the brain's). Nothing of the product is
// imported: the bench sees what a user sees.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/package.js';

/** The `brain` command npm links (it sets MALLOC_ARENA_MAX, then execs node on dist/cli/brain.js). */
export const BRAIN_BIN = join(PACKAGE_ROOT, 'bin', 'brain');

/** `brain ARGS` with the bench's own Node first on PATH, the one bin/brain execs. */
function spawnBrain(args: string[], env: NodeJS.ProcessEnv) {
  const path = [dirname(process.execPath), env.PATH ?? process.env.PATH ?? ''].join(delimiter);
  return spawn(BRAIN_BIN, args, { env: { ...env, PATH: path }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The brains this bench started, stopped with it when it is interrupted (never any other process).
const live = new Set<ChildProcess>();
function track<C extends ChildProcess>(child: C): C {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const c of live) c.kill('SIGTERM');
    process.exit(130);
  });
}

function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // gone already
    }
  }
  return out;
}

/**
 * Reads /proc/PID/`file` of the process and each of its children into `add`; whether any was
 * read (none off Linux, or once all have exited).
 */
function readEachLive(pid: number, file: 'stat' | 'status', add: (text: string) => void): boolean {
  let seen = false;
  for (const p of descendants(pid)) {
    try {
      add(readFileSync(`/proc/${p}/${file}`, 'utf8'));
      seen = true;
    } catch {
      // exited between the listing and the read
    }
  }
  return seen;
}

/**
 * Minor page faults so far (/proc/PID/stat), summed over the process and its children: each is a
 * first touch of a page, which on this VM costs 12-35 µs (docs/performance.md). Undefined off Linux.
 */
export function minorFaultsOf(pid: number): number | undefined {
  let faults = 0;
  // The fields after the command name (which may hold spaces), from field 3 on: minflt is field 10.
  const seen = readEachLive(pid, 'stat', (stat) => (faults += Number(stat.split(') ')[1]!.split(' ')[7])));
  return seen ? faults : undefined;
}

/** RSS now and its high-water mark (VmHWM), in MiB, summed over the process and its children. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } | undefined {
  let rss = 0;
  let hwm = 0;
  const seen = readEachLive(pid, 'status', (status) => {
    rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    hwm += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  });
  return seen ? { rssMb: rss / 1024, hwmMb: hwm / 1024 } : undefined;
}

export interface Finished {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The largest VmHWM seen while it ran (sampled every `sampleMs`): its peak RSS. */
  peakRssMb: number;
}

/** Runs `brain ARGS` to its end, sampling its memory. */
export function runBrain(args: string[], env: NodeJS.ProcessEnv, opts: { sampleMs?: number; onStderr?: (text: string) => void } = {}): Promise<Finished> {
  const started = performance.now();
  const child = track(spawnBrain(args, env));
  let stdout = '';
  let stderr = '';
  let peak = 0;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    opts.onStderr?.(d.toString());
  });
  const sample = () => {
    const m = child.pid ? memoryOf(child.pid) : undefined;
    if (m) peak = Math.max(peak, m.hwmMb, m.rssMb);
  };
  const timer = setInterval(sample, opts.sampleMs ?? 100);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => (clearInterval(timer), reject(e)));
    // 'exit' comes before the pipes close; the last sample is taken while /proc still has it.
    child.once('exit', () => clearInterval(timer));
    child.once('close', (code) => resolve({ ms: performance.now() - started, code, stdout, stderr, peakRssMb: peak }));
  });
}

export interface ServerProcess {
  child: ChildProcess;
  /** Spawn to the line `serving "SUBJECT"` (the HTTP server listening). */
  listening: Promise<number>;
  /** Spawn to the first /healthz answered (polled every 20 ms): listening as a client sees it. */
  healthy: Promise<number>;
  /** Spawn to the line "The brain is open" (the embedded database opened and checked). */
  openLine: Promise<number>;
  /** Everything it wrote to stderr so far (pino logs included). */
  stderr(): string;
  /** Lines of stderr, as they come. */
  onLine(fn: (line: string) => void): void;
  /** Spawn to the first line from now on that matches. */
  line(re: RegExp): Promise<number>;
  memory(): { rssMb: number; hwmMb: number } | undefined;
  stop(): Promise<number | null>;
  started: number;
}

/** Spawns `brain serve --subject SUBJECT`; `baseUrl` is its http://127.0.0.1:PORT. */
export function startServer(env: NodeJS.ProcessEnv, subject: string, baseUrl: string): ServerProcess {
  const started = performance.now();
  const child = track(spawnBrain(['serve', '--subject', subject], env));
  let err = '';
  let partial = '';
  const listeners: ((line: string) => void)[] = [];
  let exited = false;
  const waiters: { re: RegExp; resolve: (ms: number) => void }[] = [];
  const onData = (d: Buffer) => {
    const text = d.toString();
    err += text;
    if (err.length > 4_000_000) err = err.slice(-2_000_000);
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      for (const l of listeners) l(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (!waiters[i]!.re.test(line)) continue;
        waiters[i]!.resolve(performance.now() - started);
        waiters.splice(i, 1);
      }
    }
  };
  child.stderr.on('data', onData);
  child.stdout.on('data', onData);
  const exitPromise = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exited = true), resolve(code))));
  const died = exitPromise.then((code) => {
    throw new Error(`brain serve exited (${code}) before that:\n${err.slice(-3_000)}`);
  });
  // Each promise below may never be awaited (a run that stops the server first): handled here,
  // they still reject for whoever awaits them.
  const handled = <T>(p: Promise<T>): Promise<T> => (p.catch(() => undefined), p);
  handled(died);
  const line = (re: RegExp) => handled(Promise.race([new Promise<number>((resolve) => waiters.push({ re, resolve })), died]));
  const healthy = handled((async () => {
    for (;;) {
      if (exited) return died;
      const ok = await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false);
      if (ok) return performance.now() - started;
      await sleep(20);
    }
  })());
  return {
    child,
    started,
    listening: line(new RegExp(`serving "${subject}"`)),
    healthy,
    openLine: line(/The brain is open/),
    stderr: () => err,
    onLine: (fn) => listeners.push(fn),
    line,
    memory: () => (child.pid && !exited ? memoryOf(child.pid) : undefined),
    stop: async () => {
      if (exited) return exitPromise;
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exitPromise;
      clearTimeout(kill);
      return code;
    },
  };
}
