import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { mayBeBrain } from '../../db/data-lock.js';
import { parse } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain down';

export const down: Command = {
  usage,
  summary: 'Stop the embedded brain started by `brain up` / `npm start` (it drains sessions and closes cleanly).',
  async run(args) {
    parse(args, {}, usage);
    const rt = loadRuntimeConfig();
    const lock = join(rt.home, 'data.lock');
    if (!existsSync(lock)) {
      process.stdout.write('The embedded brain is not running.\n');
      return 0;
    }
    const pid = Number(readFileSync(lock, 'utf8').trim());
    // A stale lock's PID may belong to another program by now: never signal that one.
    if (!Number.isInteger(pid) || pid <= 0 || !mayBeBrain(pid)) {
      process.stdout.write(`The embedded brain is not running (stale lock ${lock} of process ${pid}, which is not a brain now; the next start clears it).\n`);
      return 0;
    }
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      process.stdout.write(`The embedded brain is not running (stale lock of process ${pid}).\n`);
      return 0;
    }
    for (let i = 0; i < 100 && existsSync(lock); i++) await new Promise((r) => setTimeout(r, 100));
    process.stdout.write(existsSync(lock) ? `Asked process ${pid} to stop; it is still shutting down.\n` : 'Stopped.\n');
    return 0;
  },
};
