import { linkTopics } from '../../services/knowledge/index.js';
import { relation } from '../../services/knowledge/schemas.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain link FROM TO ${SUBJECT_USAGE} [--context TEXT] [--relation ${relation.options.join('|')}] [--to-subject personal] [--reason R]`;

export const link: Command = {
  usage,
  summary: 'Link one card to another (the target need not exist yet); --to-subject personal points into the shared subject.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, context: { type: 'string' }, relation: { type: 'string' }, 'to-subject': { type: 'string' }, reason: { type: 'string' } }, usage);
    const [from, to, extra] = positionals;
    if (!from || !to || extra) throw new CliError(`FROM and TO are needed\nusage: ${usage}`);
    const rel = values.relation === undefined ? undefined : relation.safeParse(values.relation);
    if (rel && !rel.success) throw new CliError(`--relation is one of ${relation.options.join(', ')}`);
    return withSubject(values, async (ctx) => {
      const r = await linkTopics(ctx, { from, to, toSubject: values['to-subject'], relation: rel?.data, context: values.context, reason: values.reason });
      if (values.json) printJson(r);
      else process.stdout.write(`Linked ${r.fromSubject}:${r.fromSlug} → ${r.toSubject}:${r.toSlug} (${r.relation}).\n`);
      return EXIT.ok;
    });
  },
};
