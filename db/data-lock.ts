// One process at a time may open the embedded brain's data directory: two PGlite
// instances on the same files would corrupt them.
import { closeSync, linkSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename } from 'node:path';

export class DataDirBusyError extends Error {
  override readonly name = 'DataDirBusyError';
}

/** Whether a process with this PID exists (EPERM: it does, owned by another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a live process may be a brain: on Linux from its command line (a brain runs
 * `node …/brain.js`, `npm start`, or the `brain` bin, so any node process counts); elsewhere,
 * or when the command line cannot be read, it is assumed to be one. A PID reused by another
 * program (the lock outlived a crash or a reboot) is not.
 */
export function mayBeBrain(pid: number): boolean {
  if (process.platform !== 'linux') return true;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  const args = cmdline.split('\0').filter(Boolean);
  if (args.length === 0) return false; // a zombie or a kernel thread
  return /^node/.test(basename(args[0]!)) || args.some((a) => a.includes('brain'));
}

/**
 * What a process runs, for messages and for telling a starting brain from a one-shot command:
 * "brain serve --stdio --subject homelab" for a brain (its arguments after brain.js), else its
 * whole command line; undefined where it cannot be read.
 */
export function commandOf(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
  const at = args.findIndex((a) => /(^|\/)brain(\.js)?$/.test(a));
  return at === -1 ? args.join(' ') || undefined : ['brain', ...args.slice(at + 1)].join(' ');
}

/**
 * Creates the lock file with this process's PID already in it: written beside it, then
 * hard-linked into place, which fails if it exists. Created empty and written after, a
 * second process could read it empty in between, take it for stale and remove it, and two
 * processes would open the same files. Where hard links are not supported, open-then-write.
 */
function createLock(lockFile: string): void {
  const tmp = `${lockFile}.${process.pid}.tmp`;
  writeFileSync(tmp, String(process.pid), { mode: 0o600 });
  try {
    linkSync(tmp, lockFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    const fd = openSync(lockFile, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Takes the lock file (removing a stale one); returns its release function. */
export function lockDataDir(lockFile: string, warn: (message: string) => void = (m) => process.stderr.write(`brain: warning: ${m}\n`)): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      createLock(lockFile);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(lockFile, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) {
        if (mayBeBrain(pid)) {
          const command = commandOf(pid);
          throw new DataDirBusyError(
            `the embedded brain is in use by process ${pid} (lock file ${lockFile})${command ? `, \`${command}\`` : ''}. ` +
              'Commands that act as one subject (search, get, stats, ..., serve --stdio) use a running `brain up` or `brain serve` through it; ' +
              'this one needs the data directory to itself: stop that process first with `brain down` (or Ctrl-C where it runs), or wait for it to finish',
          );
        }
        warn(`removed the stale lock ${lockFile}: its process ${pid} is alive but is not a claude-brain (the PID was reused)`);
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirBusyError(`could not take the lock file ${lockFile}: another process keeps creating it`);
}
