import { episodeLine } from '../../services/gbrain/episode-mapping.js';
import { timeline as timelineOf } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain timeline SLUG ${SUBJECT_USAGE} [--limit N]`;

export const timeline: Command = {
  usage,
  summary: "A card's timeline: its episodes, newest first, as GBrain timeline lines (--json: the episodes).",
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, limit: { type: 'string' } }, usage);
    const [slug, extra] = positionals;
    if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number');
    return withSubject(values, async (ctx) => {
      const episodes = await timelineOf(ctx, { slug, limit });
      if (values.json) printJson(episodes);
      else {
        const lines = episodes.map((e) =>
          episodeLine({ id: e.id, kind: e.kind, date: e.occurredAt.slice(0, 10), title: e.title, summary: e.summary, detail: e.detail, sourceLabel: e.sourceLabel }),
        );
        process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
      }
      return EXIT.ok;
    });
  },
};
