import { linkTopics } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain unlink FROM TO ${SUBJECT_USAGE} [--to-subject personal] [--reason R]`;

export const unlink: Command = {
  usage,
  summary: 'Remove the links from one card to another (every relation). Exit 3 when there is none.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, 'to-subject': { type: 'string' }, reason: { type: 'string' } }, usage);
    const [from, to, extra] = positionals;
    if (!from || !to || extra) throw new CliError(`FROM and TO are needed\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const r = await linkTopics(ctx, { from, to, toSubject: values['to-subject'], remove: true, reason: values.reason });
      if (values.json) printJson({ removed: r });
      else process.stdout.write(`Unlinked ${r.fromSubject}:${r.fromSlug} → ${r.toSubject}:${r.toSlug}.\n`);
      return EXIT.ok;
    });
  },
};
