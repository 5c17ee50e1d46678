import { restore as restoreVersion } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import { restoreFromFile } from './backup.js';
import type { Command } from './index.js';

const usage = `brain restore VERSION_ID ${SUBJECT_USAGE} [--reason R]   |   brain restore BACKUP_FILE [--json]`;

export const restore: Command = {
  usage,
  summary:
    'With a version id (see `brain history`): put a card or episode back as it was, the state it replaces kept as a version too. ' +
    'With a file: restore a backup written by `brain backup` into an empty brain.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, reason: { type: 'string' } }, usage);
    const [target, extra] = positionals;
    if (!target || extra) throw new CliError(`one VERSION_ID or BACKUP_FILE is needed\nusage: ${usage}`);
    // A whole number is a version of a card; anything else names a backup file.
    if (!/^\d+$/.test(target)) return restoreFromFile(target, values.json === true);
    const versionId = Number(target);
    if (versionId < 1) throw new CliError(`a version id is a positive whole number\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const r = await restoreVersion(ctx, { versionId, reason: values.reason });
      if (values.json) printJson(r);
      else process.stdout.write(`Restored ${r.entity} ${r.id} from version ${r.restoredFrom}${r.recreated ? ' (it had been deleted)' : ''}.\n`);
      return EXIT.ok;
    }, { writes: true });
  },
};
