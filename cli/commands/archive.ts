// brain archive / unarchive / merge: the archive tool's three uses as commands.
import { archiveTopic, mergeTopics } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, readTextFile } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

function archiveCommand(unarchive: boolean): Command {
  const name = unarchive ? 'unarchive' : 'archive';
  const usage = `brain ${name} SLUG ${SUBJECT_USAGE} [--reason R]`;
  return {
    usage,
    summary: unarchive
      ? 'Bring an archived (or merged) card back, as it was; a merged card stays merged into its survivor.'
      : 'Archive a card: hidden from search, list, get and lint, kept with its history; `brain unarchive SLUG` brings it back.',
    async run(args) {
      const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, reason: { type: 'string' } }, usage);
      const [slug, extra] = positionals;
      if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
      return withSubject(values, async (ctx) => {
        const r = await archiveTopic(ctx, { slug, unarchive, reason: values.reason });
        const card = `${r.subject}:${r.slug}`;
        if (values.json) printJson(r);
        else if (!r.changed) process.stdout.write(`${card} ${unarchive ? 'is not archived' : 'was already archived'}; nothing changed.\n`);
        else {
          process.stdout.write(`${unarchive ? 'Unarchived' : 'Archived'} ${card} (now v${r.version}).\n`);
          if (!unarchive && r.linkedFrom) process.stderr.write(`Note: ${r.linkedFrom} link(s) in ${r.subject} point at it; brain lint lists them.\n`);
        }
        return EXIT.ok;
      });
    },
  };
}

export const archive = archiveCommand(false);
export const unarchive = archiveCommand(true);

const mergeUsage = `brain merge FROM INTO ${SUBJECT_USAGE} [--body-file F.md] [--title T] [--summary S] [--reason R]`;

export const merge: Command = {
  usage: mergeUsage,
  summary:
    "Merge card FROM into card INTO in one step: INTO gets FROM's body appended (or --body-file), its tags, links, backlinks, episodes and sources; FROM is archived pointing at INTO. Both histories are kept.",
  async run(args) {
    const { values, positionals } = parse(
      args,
      { ...SUBJECT_OPTIONS, 'body-file': { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' }, reason: { type: 'string' } },
      mergeUsage,
    );
    const [from, into, extra] = positionals;
    if (!from || !into || extra) throw new CliError(`FROM and INTO are needed\nusage: ${mergeUsage}`);
    const body = values['body-file'] ? readTextFile(values['body-file']) : undefined;
    return withSubject(
      values,
      async (ctx) => {
        const r = await mergeTopics(ctx, { from, into, body, title: values.title, summary: values.summary, reason: values.reason });
        if (values.json) printJson(r);
        else {
          process.stdout.write(
            `Merged ${r.subject}:${r.from} into ${r.subject}:${r.into} (now v${r.intoVersion}): body ${r.body}, ${r.tagsAdded} tag(s), ${r.linksMoved} link(s), ${r.backlinksMoved} backlink(s), ` +
              `${r.episodesMoved} episode(s), ${r.sourcesMoved} source(s) moved; ${r.from} is archived (v${r.fromVersion}).\n`,
          );
          if (r.rawKept.length) process.stderr.write(`Note: raw data ${r.rawKept.join(', ')} stayed on ${r.from} (${r.into} has its own).\n`);
        }
        return EXIT.ok;
      },
      { writes: true },
    );
  },
};
