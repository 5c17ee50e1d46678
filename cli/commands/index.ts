import { backup } from './backup.js';
import { init } from './init.js';
import { subjects } from './subjects.js';
import { serve } from './serve.js';
import { up } from './up.js';
import { version } from './version.js';

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(args: string[]): Promise<number>;
}

export const commands: Record<string, Command> = {
  backup,
  init,
  migrate: { ...init, summary: 'Same as init: bring roles, schemas, migrations, kinds and grants up to date.' },
  serve,
  subjects,
  up,
  version,
};
