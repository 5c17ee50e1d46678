// A brain the scale bench kept (`node dist/bench/scale/run.js --keep DIR`): its size directory
// checked, and the environment a `brain` process (or this one, through loadRuntimeConfig) opens
// it with. For the benches that measure it again (parts.ts, keyword-plans.ts).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SUBJECT } from './brain-home.js';

/** The size directory, resolved; throws, naming the fix, when it is not one the scale bench kept. */
export function keptBrainDir(raw: string | undefined): string {
  if (!raw) throw new Error('--brain DIR is required: a size directory kept by `node dist/bench/scale/run.js --keep DIR` (DIR/size-7500)');
  const dir = resolve(raw);
  if (!existsSync(join(dir, 'home')) || !existsSync(join(dir, 'config', 'subjects.yaml'))) throw new Error(`${dir} has no home/ and config/subjects.yaml: pass the size directory the scale bench kept (DIR/size-7500)`);
  return dir;
}

/** The environment of a `brain` process on it: the bench subject, no web view, and `extra` (the embedder). */
export function keptBrainEnv(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    BRAIN_HOME: join(dir, 'home'),
    BRAIN_CONFIG_DIR: join(dir, 'config'),
    BRAIN_SUBJECT: SUBJECT,
    BRAIN_VIEW_PORT: 'off',
    ...extra,
  };
}

/** The command-line options every bench on a kept brain takes (parseArgs), to spread into its own. */
export const KEPT_BRAIN_OPTIONS = {
  brain: { type: 'string' },
  pages: { type: 'string', default: '7500' },
  seed: { type: 'string', default: '1' },
  queries: { type: 'string', default: '200' },
} as const;

/** A whole number option at least `min`; throws, naming the option, otherwise. */
export function wholeOption(name: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got ${raw}`);
  return n;
}

/** KEPT_BRAIN_OPTIONS checked: the size directory and the scale run's pages, seed and query count. */
export function keptBrainArgs(values: { brain?: string | undefined; pages: string; seed: string; queries: string }): { dir: string; pages: number; seed: number; count: number } {
  return { dir: keptBrainDir(values.brain), pages: wholeOption('pages', values.pages, 10), seed: wholeOption('seed', values.seed, 0), count: wholeOption('queries', values.queries, 5) };
}

/** Ends a bench that cannot run (a bad option, a missing brain): `why` on stderr and exit 2, not a stack trace. */
export function fail(why: string): never {
  console.error(why);
  return process.exit(2);
}

/** `fn`'s value; when it throws, its message through fail. */
export function orExit<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    return fail((error as Error).message);
  }
}
