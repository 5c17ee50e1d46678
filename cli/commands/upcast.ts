import { upcast as upcastCard } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, readTextFile } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain upcast SLUG --reason R ${SUBJECT_USAGE} [--personal-slug SLUG] [--title T] [--summary S] [--body-file FILE] [--replace]`;

export const upcast: Command = {
  usage,
  summary: 'Promote a project card into personal, with a reason (the deny-list decides what may cross). Run as the project subject.',
  async run(args) {
    const { values, positionals } = parse(
      args,
      { ...SUBJECT_OPTIONS, reason: { type: 'string' }, 'personal-slug': { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' }, 'body-file': { type: 'string' }, replace: { type: 'boolean' } },
      usage,
    );
    const [slug, extra] = positionals;
    if (!slug || extra || !values.reason) throw new CliError(`SLUG and --reason are needed\nusage: ${usage}`);
    const body = values['body-file'] ? readTextFile(values['body-file']) : undefined;
    return withSubject(values, async (ctx) => {
      const r = await upcastCard(ctx, {
        slug,
        reason: values.reason!,
        personalSlug: values['personal-slug'],
        title: values.title,
        summary: values.summary,
        body,
        bodyMode: values.replace ? 'replace' : 'append',
      });
      if (values.json) printJson(r);
      else process.stdout.write(`${r.action === 'created' ? 'Created' : 'Updated'} personal:${r.personal.slug}, linked from ${r.linkedFrom}.\n`);
      return EXIT.ok;
    });
  },
};
