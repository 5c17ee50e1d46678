import { renderSnapshot } from '../../services/gbrain/export.js';
import { loadSnapshot } from '../../services/gbrain/snapshot.js';
import { getTopic, requireTopic } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain get SLUG ${SUBJECT_USAGE}`;

export const get: Command = {
  usage,
  summary: 'Print a card as its GBrain page (byte for byte the imported file while unchanged); --json gives the card with tags, links and timeline. Exit 3 when there is no such card.',
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    const [slug, extra] = positionals;
    if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      if (values.json) {
        printJson(await getTopic(ctx, { slug, include: ['tags', 'links', 'timeline', 'sources'] }));
        return EXIT.ok;
      }
      const topic = await requireTopic(ctx.db, ctx.subject.name, slug);
      const { files } = renderSnapshot(await loadSnapshot(ctx.db, ctx.subject.name, [topic.id]));
      const page = files.find((f) => f.kind === 'page' && f.topicId === topic.id)!;
      process.stdout.write(page.bytes);
      return EXIT.ok;
    });
  },
};
