import { tagTopic } from '../../services/knowledge/index.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain tag SLUG TAG... ${SUBJECT_USAGE} [--reason R]`;

export const tag: Command = {
  usage,
  summary: 'Add tags to a card; prints the tags it has afterwards.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, reason: { type: 'string' } }, usage);
    const [slug, ...names] = positionals;
    if (!slug || names.length === 0) throw new CliError(`SLUG and at least one TAG are needed\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const { tags: now, renamed } = await tagTopic(ctx, { slug, tags: names, remove: false, reason: values.reason });
      // Tags are stored normalised (lowercase, words joined by -): say so for each one that changed.
      for (const r of renamed) process.stderr.write(`Tagged ${JSON.stringify(r.to)} (from ${JSON.stringify(r.from)})\n`);
      if (values.json) printJson({ slug, tags: now, ...(renamed.length ? { renamed } : {}) });
      else process.stdout.write(`${slug}: ${now.join(', ') || '(no tags)'}\n`);
      return EXIT.ok;
    });
  },
};
