import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import type { Command } from './index.js';

export const version: Command = {
  usage: 'brain version',
  summary: 'Print the version.',
  async run() {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
    process.stdout.write(`claude-brain ${pkg.version}\n`);
    return 0;
  },
};
