import { loadKinds } from '../../config/kinds.js';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { DEFAULT_KIND_MAP } from '../../services/gbrain/kinds.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT } from '../subject.js';
import type { Command } from './index.js';

const usage = 'brain kinds [--json]';

export const kinds: Command = {
  usage,
  summary: 'The kind vocabulary (kinds.yaml): topic kinds (what something is) and episode kinds (what happened), with the GBrain directories that import into each.',
  async run(args) {
    const { values, positionals } = parse(args, { json: { type: 'boolean' } }, usage);
    if (positionals.length) throw new CliError(`kinds takes no arguments\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    const list = loadKinds(rt.kindsFile).map((k) => ({ ...k, gbrainDirectories: Object.entries(DEFAULT_KIND_MAP).filter(([, kind]) => kind === k.name).map(([d]) => d) }));
    if (values.json) printJson(list);
    else {
      for (const cls of ['topic', 'episode'] as const) {
        process.stdout.write(`${cls === 'topic' ? 'Topic kinds' : 'Episode kinds'}:\n`);
        const rows = list.filter((k) => k.class === cls).map((k) => [`  ${k.name}`, k.description, k.gbrainDirectories.map((d) => `${d}/`).join(' ')]);
        process.stdout.write(`${table(rows)}\n`);
      }
    }
    return EXIT.ok;
  },
};
