import { history as historyOf } from '../../services/knowledge/index.js';
import { historyMarkdown } from '../../services/mcp/format.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain history SLUG ${SUBJECT_USAGE} [--limit N]   |   brain history --episode ID ${SUBJECT_USAGE} [--limit N]`;

export const history: Command = {
  usage,
  summary:
    "A card's (or an episode's) versions v1, v2... newest first: when, by whom, why, and what changed (fields, a line diff of the body). Put one back with `brain restore SLUG vN`. Exit 3 when there is no such card.",
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, limit: { type: 'string' }, episode: { type: 'string' } }, usage);
    const [slug, extra] = positionals;
    if (extra || (slug === undefined) === (values.episode === undefined)) throw new CliError(`name a SLUG or an --episode ID\nusage: ${usage}`);
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    const episodeId = values.episode === undefined ? undefined : Number(values.episode);
    if (!Number.isInteger(limit) || limit < 1 || (episodeId !== undefined && !Number.isInteger(episodeId))) throw new CliError('--limit and --episode are whole numbers');
    return withSubject(values, async (ctx) => {
      const h = await historyOf(ctx, { slug, episodeId, limit });
      if (values.json) printJson(h);
      else {
        const again = slug !== undefined ? `brain restore ${slug} vN` : `brain restore --episode ${episodeId} vN`;
        process.stdout.write(`${historyMarkdown(h, { restoreHint: `Put one back: ${again}${values.subject ? ` --subject ${values.subject}` : ''}` })}\n`);
      }
      return EXIT.ok;
    });
  },
};
