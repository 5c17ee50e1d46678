import { resolve } from 'node:path';
import { exportBrain } from '../../services/gbrain/export.js';
import { loadKindMap } from '../../services/gbrain/kind-map.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain export --dir OUT ${SUBJECT_USAGE} [--kind-map FILE] [--force]`;

export const exportCommand: Command = {
  usage,
  summary: 'Export one subject as a GBrain markdown directory: imported pages unchanged since import come back byte for byte, changed ones edited in place, new cards under their kind\'s directory.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, dir: { type: 'string' }, 'kind-map': { type: 'string' }, force: { type: 'boolean' } }, usage);
    if (!values.dir || positionals.length) throw new CliError(`--dir OUT is needed\nusage: ${usage}`);
    const dir = resolve(values.dir);
    return withSubject(values, async (ctx) => {
      const r = await exportBrain(ctx, dir, { kindMap: values['kind-map'] ? loadKindMap(values['kind-map']) : undefined, force: values.force });
      if (values.json) printJson(r);
      else {
        process.stdout.write(
          `Exported "${r.subject}" to ${r.dir} in ${r.seconds.toFixed(1)} s.\n` +
            `  pages:    ${r.pages.total} (${r.pages.unchanged} as imported, ${r.pages.changed} changed, ${r.pages.new} new)\n` +
            `  sidecars: ${r.sidecars.total} (${r.sidecars.unchanged} as imported, ${r.sidecars.changed} changed, ${r.sidecars.new} new)\n` +
            `  special:  ${r.specials}\n` +
            (r.problems.length ? `\nProblems:\n${r.problems.map((p) => `  ${p.reason}`).join('\n')}\n` : ''),
        );
      }
      return r.problems.length === 0 ? EXIT.ok : EXIT.failed;
    });
  },
};
