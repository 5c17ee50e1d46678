import { backlinks as backlinksOf } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain backlinks SLUG ${SUBJECT_USAGE}`;

export const backlinks: Command = {
  usage,
  summary: 'Cards linking to this slug, from every subject this one can read (its own, and personal).',
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    const [slug, extra] = positionals;
    if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const rows = await backlinksOf(ctx, { slug });
      if (values.json) printJson(rows);
      else if (rows.length) process.stdout.write(`${table([['FROM', 'RELATION', 'CONTEXT'], ...rows.map((r) => [`${r.fromSubject}:${r.fromSlug}`, r.relation, r.context])])}\n`);
      return EXIT.ok;
    });
  },
};
