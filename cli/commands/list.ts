import { listTopics } from '../../services/knowledge/index.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain list ${SUBJECT_USAGE} [--kind KIND] [--tag TAG] [--since YYYY-MM-DD] [--limit N]`;

export const list: Command = {
  usage,
  summary: 'List cards, most recently updated first, filtered by kind, tag or update date (default limit 50, at most 500).',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, kind: { type: 'string' }, tag: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } }, usage);
    if (positionals.length) throw new CliError(`list takes no arguments\nusage: ${usage}`);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number');
    return withSubject(values, async (ctx) => {
      const rows = await listTopics(ctx, { kind: values.kind, tag: values.tag, updatedSince: values.since, limit });
      if (values.json) printJson(rows);
      else if (rows.length === 0) process.stdout.write('No cards.\n');
      else process.stdout.write(`${table([['SLUG', 'KIND', 'TITLE', 'UPDATED'], ...rows.map((r) => [r.slug, r.kind, r.title, r.updatedAt.slice(0, 10)])])}\n`);
      return EXIT.ok;
    });
  },
};
