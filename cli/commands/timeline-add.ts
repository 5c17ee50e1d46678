import { addTimelineEntry } from '../../services/gbrain/timeline-add.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain timeline-add SLUG --date YYYY-MM-DD --summary TEXT ${SUBJECT_USAGE} [--source TEXT] [--detail TEXT] [--kind EPISODE_KIND] [--reason R]`;

export const timelineAdd: Command = {
  usage,
  summary: "Add a dated entry to a card: an episode, and a line at the top of the card's timeline markdown. The kind defaults from the source (meeting/call → meeting, else note).",
  async run(args) {
    const { values, positionals } = parse(
      args,
      { ...SUBJECT_OPTIONS, date: { type: 'string' }, summary: { type: 'string' }, source: { type: 'string' }, detail: { type: 'string' }, kind: { type: 'string' }, reason: { type: 'string' } },
      usage,
    );
    const [slug, extra] = positionals;
    if (!slug || extra || !values.date || !values.summary) throw new CliError(`SLUG, --date and --summary are needed\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const e = await addTimelineEntry(ctx, { slug, date: values.date!, summary: values.summary!, source: values.source, detail: values.detail, kind: values.kind, reason: values.reason });
      if (values.json) printJson(e);
      else process.stdout.write(`Added episode ${e.id} (${e.kind}, ${e.occurredAt}) to ${slug}.\n`);
      return EXIT.ok;
    }, { writes: true });
  },
};
