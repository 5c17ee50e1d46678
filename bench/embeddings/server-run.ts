// One run of a real server over a backlog: `brain serve --subject homelab` as its own process
// on a fresh copy of the prepared brain, timed from listening until /readyz reports nothing
// pending, with the process's CPU (main thread apart from the others: the model's threads,
// libuv, V8) and its resident memory sampled from /proc.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { brainEnv, copyBrain, type Backlog } from './backlog.js';

export interface ServerRun {
  cards: number;
  /** Listening (first /readyz answer) to nothing pending. */
  seconds: number;
  /** First to last "embedded cards" log line, over the cards embedded after the first batch. */
  steadyCardsPerSecond: number;
  /** CPU seconds over the run: the main thread (HTTP, PGlite, the worker's loop), and every other thread. */
  cpuMain: number;
  cpuOther: number;
  peakRssMb: number;
  /** Resident memory once nothing is pending, after `idleWaitMs`. */
  idleRssMb: number;
  /** Busiest minute's load average while it ran. */
  load: number;
}

const CLK_TCK = 100;

// Ctrl-C or a timeout: exit through process.exit, so each run's 'exit' handler kills its server.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));

/** utime + stime of each thread of `pid`, in seconds; the main thread's id is the pid. */
function threadCpu(pid: number): { main: number; other: number } {
  let main = 0;
  let other = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const s = (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
      if (Number(tid) === pid) main += s;
      else other += s;
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return { main, other };
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

interface Readyz {
  embedder?: { state?: string; pending?: number };
}

export async function runServer(
  brainJs: string,
  backlog: Backlog,
  runHome: string,
  embedderEnv: Record<string, string>,
  opts: { idleWaitMs?: number; timeoutMs?: number } = {},
): Promise<ServerRun> {
  copyBrain(backlog, runHome);
  const child = spawn(process.execPath, [brainJs, 'serve', '--subject', 'homelab'], {
    env: brainEnv(runHome, backlog.configDir, { BRAIN_LOG_LEVEL: 'info', ...embedderEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const batches: { time: number; embedded: number }[] = [];
  let buffered = '';
  const onData = (d: Buffer) => {
    buffered += d.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.includes('"embedded cards"')) continue;
      try {
        const j = JSON.parse(line) as { time: number; embedded: number };
        batches.push({ time: j.time, embedded: j.embedded });
      } catch {
        /* not a log line */
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The bench stopped early (Ctrl-C, a timeout): the server goes with it.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  const pid = child.pid!;
  const url = `http://127.0.0.1:${backlog.port}/readyz`;
  const deadline = Date.now() + (opts.timeoutMs ?? 1_800_000);
  let listening = 0;
  let cpu0 = { main: 0, other: 0 };
  let peak = 0;
  let load = 0;
  let maxPending = 0;
  let lastPending = -1;
  let lastBody: Readyz | undefined;
  let movedAt = Date.now();
  try {
    for (;;) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the backlog to drain');
      if (Date.now() - movedAt > 120_000) throw new Error(`nothing embedded for 2 minutes; /readyz: ${JSON.stringify(lastBody)}`);
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      peak = Math.max(peak, rssMb(pid));
      load = Math.max(load, load1());
      const body = await fetch(url)
        .then((r) => r.json() as Promise<Readyz>)
        .catch(() => undefined);
      if (body && listening === 0) {
        listening = performance.now();
        cpu0 = threadCpu(pid);
      }
      const pending = body?.embedder?.pending;
      lastBody = body;
      if (pending !== undefined) maxPending = Math.max(maxPending, pending);
      if (pending !== lastPending) {
        lastPending = pending ?? -1;
        movedAt = Date.now();
      }
      // The worker reports 0 before its first count: done means counted, then drained.
      if (maxPending > 0 && pending === 0 && body?.embedder?.state === 'ok') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - listening) / 1000;
    const cpu1 = threadCpu(pid);
    await new Promise((r) => setTimeout(r, opts.idleWaitMs ?? 3_000));
    const idle = rssMb(pid);
    const first = batches[0];
    const last = batches.at(-1);
    const after = batches.slice(1).reduce((n, b) => n + b.embedded, 0);
    return {
      cards: maxPending,
      seconds,
      steadyCardsPerSecond: first && last && last.time > first.time ? (after * 1000) / (last.time - first.time) : NaN,
      cpuMain: cpu1.main - cpu0.main,
      cpuOther: cpu1.other - cpu0.other,
      peakRssMb: Math.max(peak, idle),
      idleRssMb: idle,
      load,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    process.off('exit', orphan);
  }
}
