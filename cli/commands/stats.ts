import { statsFigures, subjectStats, type SubjectStats } from '../../services/knowledge/stats.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain stats ${SUBJECT_USAGE}`;

/** The figures of services/knowledge/stats.ts as a table; the MCP tool prints the same ones on a line. */
export function statsTable(s: SubjectStats): string {
  const rows = [['Subject', s.subject]];
  for (const f of statsFigures(s)) {
    rows.push([f.label[0]!.toUpperCase() + f.label.slice(1), `${f.value}${f.detail ? ` (${f.detail})` : ''}`]);
    for (const [k, n] of f.breakdown ?? []) rows.push([`  ${k}`, String(n)]);
  }
  return table(rows);
}

export const stats: Command = {
  usage,
  summary: 'Counts for one subject: cards per kind, episodes, links, tags, raw data, documents, imported GBrain pages and ingest records.',
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    if (positionals.length) throw new CliError(`stats takes no arguments\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const result = await subjectStats(ctx);
      if (values.json) printJson(result);
      else process.stdout.write(`${statsTable(result)}\n`);
      return EXIT.ok;
    });
  },
};
