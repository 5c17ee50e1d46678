// One process at a time may open the embedded brain's data directory: two PGlite
// instances on the same files would corrupt them.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename } from 'node:path';

export class DataDirBusyError extends Error {
  override readonly name = 'DataDirBusyError';
}

function alive(pid: number): boolean {
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

/** Takes the lock file (removing a stale one); returns its release function. */
export function lockDataDir(lockFile: string, warn: (message: string) => void = (m) => process.stderr.write(`brain: warning: ${m}\n`)): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(lockFile, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) {
        if (mayBeBrain(pid)) {
          throw new DataDirBusyError(
            `the embedded brain is in use by process ${pid} (lock file ${lockFile}), a running \`brain up\` / \`npm start\` / \`brain serve\`: ` +
              'stop it first with `brain down` (or Ctrl-C where it runs), or talk to it through its MCP servers',
          );
        }
        warn(`removed the stale lock ${lockFile}: its process ${pid} is alive but is not a claude-brain (the PID was reused)`);
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirBusyError(`could not take the lock file ${lockFile}: another process keeps creating it`);
}
