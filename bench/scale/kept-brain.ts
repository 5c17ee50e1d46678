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
