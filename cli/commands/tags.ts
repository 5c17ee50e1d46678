import { allTags, tagsOf } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain tags [SLUG] ${SUBJECT_USAGE}`;

export const tags: Command = {
  usage,
  summary: "A card's tags; without a slug, every tag of the subject with how many cards carry it.",
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    const [slug, extra] = positionals;
    if (extra) throw new CliError(`at most one SLUG\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      if (slug) {
        const list = await tagsOf(ctx, { slug });
        if (values.json) printJson(list);
        else process.stdout.write(list.length ? `${list.join('\n')}\n` : '');
      } else {
        const counts = await allTags(ctx);
        if (values.json) printJson(counts);
        else if (counts.length) process.stdout.write(`${table([['TAG', 'CARDS'], ...counts.map((c) => [c.tag, String(c.count)])])}\n`);
      }
      return EXIT.ok;
    });
  },
};
