import { VERSION } from '../../config/package.js';
import type { Command } from './index.js';

export const version: Command = {
  usage: 'brain version',
  summary: 'Print the version.',
  async run() {
    process.stdout.write(`claude-brain ${VERSION}\n`);
    return 0;
  },
};
