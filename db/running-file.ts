// How the process that holds the embedded brain (its data.lock) tells the others where to
// reach it: BRAIN_HOME/running.json, mode 0600 like the secrets beside it. `brain up` and
// `brain serve` write it once their servers listen and remove it before they release the
// lock; the CLI reads it to send its work to the running brain instead of refusing
// (cli/running-brain.ts). It holds:
//  - each subject's MCP endpoint this process serves over HTTP, and the token file its
//    server checks, if any (the token itself stays in its own file);
//  - the database link (db/link-server.ts): loopback port and a random token.
// It is believed only while the PID in it holds the lock and is alive: a crash leaves a file
// that names a dead process or another holder, which is ignored (and replaced by the next).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from './data-dir.js';
import { alive, mayBeBrain } from './data-lock.js';

export const RUNNING_FILE = 'running.json';
export const LOCK_FILE = 'data.lock';

export interface RunningBrainInfo {
  readonly pid: number;
  readonly startedAt: string;
  /** What runs, for messages: "brain up", "brain serve --subject homelab", ... */
  readonly command: string;
  /** Subject name -> its MCP endpoint in this process. */
  readonly mcp: Readonly<Record<string, { readonly url: string; readonly tokenFile?: string }>>;
  readonly link?: { readonly host: string; readonly port: number; readonly token: string };
}

/** Writes the file (replacing a stale one); returns its removal, which leaves another process's file alone. */
export function publishRunning(home: string, info: Omit<RunningBrainInfo, 'pid' | 'startedAt'>): () => void {
  const file = join(home, RUNNING_FILE);
  const full: RunningBrainInfo = { pid: process.pid, startedAt: new Date().toISOString(), ...info };
  writeFileAtomically(file, `${JSON.stringify(full, null, 2)}\n`);
  return () => {
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as RunningBrainInfo).pid === process.pid) rmSync(file, { force: true });
    } catch {
      /* gone already */
    }
  };
}

/** The PID in data.lock, if a live process that may be a brain holds it. */
export function lockHolder(home: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(home, LOCK_FILE), 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) && mayBeBrain(pid) ? pid : undefined;
}

/** The running brain holding this home's data directory, if it published where to reach it. */
export function findRunning(home: string): RunningBrainInfo | undefined {
  const file = join(home, RUNNING_FILE);
  if (!existsSync(file)) return undefined;
  let info: RunningBrainInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as RunningBrainInfo;
  } catch {
    return undefined; // being replaced, or damaged: as if absent
  }
  if (typeof info?.pid !== 'number' || typeof info.mcp !== 'object' || info.mcp === null) return undefined;
  return lockHolder(home) === info.pid ? info : undefined;
}
