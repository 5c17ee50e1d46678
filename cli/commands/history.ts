import { history as historyOf } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain history SLUG ${SUBJECT_USAGE} [--limit N]   |   brain history --episode ID ${SUBJECT_USAGE}`;

export const history: Command = {
  usage,
  summary: 'The kept versions of a card (or an episode), newest first: what it was before each change, who changed it, when and why. Restore one with `brain restore ID`.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, limit: { type: 'string' }, episode: { type: 'string' } }, usage);
    const [slug, extra] = positionals;
    if (extra || (slug === undefined) === (values.episode === undefined)) throw new CliError(`name a SLUG or an --episode ID\nusage: ${usage}`);
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    const episodeId = values.episode === undefined ? undefined : Number(values.episode);
    if (!Number.isInteger(limit) || limit < 1 || (episodeId !== undefined && !Number.isInteger(episodeId))) throw new CliError('--limit and --episode are whole numbers');
    return withSubject(values, async (ctx) => {
      const versions = await historyOf(ctx, { slug, episodeId, limit });
      if (values.json) printJson(versions);
      else if (versions.length === 0) process.stdout.write('No earlier versions.\n');
      else {
        process.stdout.write(
          `${table([['VERSION', 'OPERATION', 'CHANGED AT', 'BY', 'REASON'], ...versions.map((v) => [String(v.id), v.operation, v.changedAt.slice(0, 19).replace('T', ' '), v.changedBy, v.reason ?? ''])])}\n`,
        );
      }
      return EXIT.ok;
    });
  },
};
