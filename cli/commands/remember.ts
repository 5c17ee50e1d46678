import { readFileSync } from 'node:fs';
import { parse, printJson } from '../output.js';
import { CliError } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE } from '../subject-options.js';
import { withToolCalls } from '../tool-calls.js';
import type { Command } from './index.js';

const usage = `brain remember --kind K --title T [--slug S] [--file F | < body.md] [--summary S] [--tag T]... [--replace] [--force-new --reason R] ${SUBJECT_USAGE}`;

export const remember: Command = {
  usage,
  summary: 'Write a card with search before add: a confident match is updated, loose matches get a linked new card, otherwise a new card.',
  async run(args) {
    const { values } = parse(
      args,
      {
        ...SUBJECT_OPTIONS,
        kind: { type: 'string' },
        title: { type: 'string' },
        slug: { type: 'string' },
        file: { type: 'string' },
        summary: { type: 'string' },
        tag: { type: 'string', multiple: true },
        replace: { type: 'boolean' },
        'force-new': { type: 'boolean' },
        reason: { type: 'string' },
      },
      usage,
    );
    if (!values.kind || !values.title) throw new CliError(`--kind and --title are needed\nusage: ${usage}`);
    const body = values.file ? readFileSync(values.file, 'utf8') : process.stdin.isTTY ? '' : readFileSync(0, 'utf8');
    const input = {
      kind: values.kind,
      title: values.title,
      body,
      ...(values.slug ? { slug: values.slug } : {}),
      ...(values.summary ? { summary: values.summary } : {}),
      tags: values.tag ?? [],
      mode: values.replace ? ('replace' as const) : ('append' as const),
      forceNew: values['force-new'] ?? false,
      ...(values.reason ? { reason: values.reason } : {}),
    };
    if (values.json) {
      // The structured decision is the service's, in this process (over the running brain's database link when one runs).
      const [{ withToolRunner }, { remember: runRemember }] = await Promise.all([import('../tool-runner.js'), import('../../services/search/index.js')]);
      return withToolRunner(values, async (runner, ctx) => {
        printJson(await runRemember(ctx, input, runner.deps.services.search ?? {}));
        return 0;
      }, { writes: true });
    }
    return withToolCalls(values, async (tools) => {
      const r = await tools.call('remember', input);
      process.stdout.write(`${r.text}\n`);
      return r.ok ? 0 : 1;
    }, { writes: true });
  },
};
