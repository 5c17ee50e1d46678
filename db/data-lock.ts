// One process at a time may open the embedded brain's data directory: two PGlite
// instances on the same files would corrupt them.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

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

/** Takes the lock file (removing a stale one); returns its release function. */
export function lockDataDir(lockFile: string): () => void {
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
        throw new DataDirBusyError(
          `the embedded brain is in use by process ${pid} (a running \`brain up\` / \`npm start\`); stop it first, or talk to it through its MCP servers`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirBusyError(`could not take ${lockFile}`);
}
