import { loadRuntimeConfig } from '../../config/runtime.js';
import { embedStale, reembedAll } from '../../services/search/index.js';
import { chooseEmbedder } from '../../services/runtime/embedding.js';
import { CliError, parse, printJson } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain embed [SLUG | --stale | --all] ${SUBJECT_USAGE}`;

export const embed: Command = {
  usage,
  summary: 'Embed this subject\'s cards now: one card, every stale card (default), or all of them again (--all, e.g. after a model change).',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, stale: { type: 'boolean' }, all: { type: 'boolean' } }, usage);
    const [slug] = positionals;
    if (slug && values.all) throw new CliError(`name a card or pass --all, not both\nusage: ${usage}`);
    const choice = await chooseEmbedder(loadRuntimeConfig());
    if (!choice.embedder) throw new CliError(`no embedder: ${choice.reason}`);
    const embedder = choice.embedder;
    return withSubject(values, async (ctx) => {
      const r = values.all ? await reembedAll(ctx, embedder) : await embedStale(ctx, embedder, slug ? { slug } : {});
      if (values.json) printJson({ embedder: choice.reason, ...r });
      else process.stdout.write(`${choice.reason}\n${JSON.stringify(r)}\n`);
      return 0;
    });
  },
};
