import { putPage } from '../../services/gbrain/put.js';
import { CliError, parse, printJson, readTextFile } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain put SLUG ${SUBJECT_USAGE} [--kind KIND] [--title TITLE] [--file FILE.md] [--reason R]   (the page on stdin unless --file)`;

export const put: Command = {
  usage,
  summary: 'Create or replace a card from a GBrain page: frontmatter, compiled truth, timeline (new lines become episodes), tags and wiki links.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, kind: { type: 'string' }, title: { type: 'string' }, file: { type: 'string' }, reason: { type: 'string' } }, usage);
    const [slug, extra] = positionals;
    if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
    if (!values.file && process.stdin.isTTY) throw new CliError(`pipe the page on stdin, or pass --file\nusage: ${usage}`);
    const markdown = readTextFile(values.file ?? 0);
    return withSubject(values, async (ctx) => {
      const r = await putPage(ctx, { slug, markdown, kind: values.kind, title: values.title, reason: values.reason });
      if (values.json) printJson(r);
      else {
        process.stdout.write(`${r.action === 'created' ? 'Created' : 'Updated'} ${r.topic.subject}:${r.topic.slug} (${r.topic.kind}, "${r.topic.title}"); ${r.episodesAdded} new timeline episode(s), ${r.links} link(s).\n`);
        for (const w of r.warnings) process.stderr.write(`brain: warning: ${w}\n`);
      }
      return EXIT.ok;
    }, { writes: true });
  },
};
