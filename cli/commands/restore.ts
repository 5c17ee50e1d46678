import { existsSync } from 'node:fs';
import { restore as restoreVersion, targetName } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import { restoreFromFile } from './backup.js';
import type { Command } from './index.js';

const usage = `brain restore SLUG vN ${SUBJECT_USAGE} [--reason R]   |   brain restore --episode ID vN ${SUBJECT_USAGE}   |   brain restore BACKUP_FILE [--json]`;

export const restore: Command = {
  usage,
  summary:
    'With a card (or --episode) and a version (see `brain history`): put it back as it was in that version, the state it replaces kept as a version too. ' +
    'With a file: restore a backup written by `brain backup` into an empty brain.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, reason: { type: 'string' }, episode: { type: 'string' } }, usage);
    const episode = values.episode;
    // One argument and no --episode names a backup file; a card's version is always SLUG vN.
    if (positionals.length === 1 && episode === undefined) {
      // `brain restore 12` was a version id once; versions are now per card.
      if (/^v?\d+$/.test(positionals[0]!) && !existsSync(positionals[0]!)) {
        throw new CliError(`versions are numbered per card: name the card and the version, e.g. brain restore tool/restic v${positionals[0]!.replace(/^v/, '')}\nusage: ${usage}`);
      }
      return restoreFromFile(positionals[0]!, values.json === true);
    }
    const [slug, version] = episode === undefined ? positionals : [undefined, positionals[0]];
    if (positionals.length !== (episode === undefined ? 2 : 1) || version === undefined) throw new CliError(`name the card and the version, e.g. brain restore tool/restic v2\nusage: ${usage}`);
    const m = /^v?(\d+)$/.exec(version);
    const episodeId = episode === undefined ? undefined : Number(episode);
    if (!m || Number(m[1]) < 1 || (episodeId !== undefined && !(Number.isInteger(episodeId) && episodeId > 0))) {
      throw new CliError(`a version is v1, v2... (or 1, 2...), as brain history shows them\nusage: ${usage}`);
    }
    return withSubject(
      values,
      async (ctx) => {
        const r = await restoreVersion(ctx, { slug, episodeId, version: Number(m[1]), reason: values.reason });
        const name = targetName(r);
        if (values.json) printJson(r);
        else if (!r.changed) process.stdout.write(`${name} already reads as v${r.restored}; nothing changed.\n`);
        else process.stdout.write(`Restored ${name} to v${r.restored}${r.recreated ? ' (it had been deleted)' : ''}; that is now v${r.current}.\n`);
        return EXIT.ok;
      },
      { writes: true },
    );
  },
};
