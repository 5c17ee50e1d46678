// Postgres's WebAssembly compiled from a one-shot command's first line. A command that will open
// the embedded brain itself waits for the compile (a worker thread's start and the compile, about
// 150 ms here) unless it started long before the open; started once the command's own modules had
// loaded, a one-shot `brain search` still waited 25-105 ms for it. So the dispatcher starts it
// before loading the command, for the commands below, when the brain is embedded and no running
// brain would answer instead (BRAIN_HOME/running.json: those commands then go to its servers or
// its database link, and the compile would only take a core from them). A stale running.json
// only means the later start, as before. docs/performance.md, "Extensions loaded when first used".
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { brainHome } from '../config/home.js';
import { RUNNING_FILE } from '../db/running-file.js';
import { startCompilingPostgres } from '../db/postgres-wasm.js';

/** One-shot commands that open a subject's brain (cli/subject.ts, cli/tool-calls.ts). */
export const OPENS_THE_BRAIN: ReadonlySet<string> = new Set([
  'search', 'query', 'remember', 'call', 'pipe',
  'get', 'put', 'list', 'stats', 'link', 'unlink', 'tags', 'tag', 'untag',
  'timeline', 'timeline-add', 'backlinks', 'history', 'archive', 'unarchive',
]);

/** Whether `command` should start compiling Postgres before it loads (see above). */
export function compilesEarly(command: string, env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): boolean {
  return OPENS_THE_BRAIN.has(command) && !env.BRAIN_DATABASE_URL && !exists(join(brainHome(env.BRAIN_HOME), RUNNING_FILE));
}

export function compileEarlyFor(command: string): void {
  if (compilesEarly(command)) startCompilingPostgres();
}
