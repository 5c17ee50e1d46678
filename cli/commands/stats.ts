import { sql } from 'kysely';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain stats ${SUBJECT_USAGE}`;

export const stats: Command = {
  usage,
  summary: 'Counts for one subject: cards per kind, links, tags, episodes, raw data, documents, imported GBrain pages and ingest records.',
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    if (positionals.length) throw new CliError(`stats takes no arguments\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      const s = ctx.db.withSchema(ctx.subject.name);
      const count = async (t: 'links' | 'topic_tags' | 'episodes' | 'raw_data' | 'documents' | 'gbrain_pages' | 'gbrain_ingest_log'): Promise<number> =>
        Number((await s.selectFrom(t).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
      const kinds = await s.selectFrom('topics').select(['kind', sql<number>`count(*)`.as('n')]).groupBy('kind').orderBy('kind').execute();
      const [distinctTags] = await s.selectFrom('topic_tags').select(sql<number>`count(DISTINCT tag)`.as('n')).execute();
      const result = {
        subject: ctx.subject.name,
        topics: kinds.reduce((n, k) => n + Number(k.n), 0),
        byKind: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
        links: await count('links'),
        tags: await count('topic_tags'),
        distinctTags: Number(distinctTags?.n ?? 0),
        episodes: await count('episodes'),
        raw: await count('raw_data'),
        documents: await count('documents'),
        importedPages: await count('gbrain_pages'),
        ingestRecords: await count('gbrain_ingest_log'),
      };
      if (values.json) printJson(result);
      else {
        process.stdout.write(
          `${table([
            ['Subject', result.subject],
            ['Cards', String(result.topics)],
            ...Object.entries(result.byKind).map(([k, n]) => [`  ${k}`, String(n)]),
            ['Links', String(result.links)],
            ['Tags', `${result.tags} (${result.distinctTags} distinct)`],
            ['Episodes', String(result.episodes)],
            ['Raw data', String(result.raw)],
            ['Documents', String(result.documents)],
            ['Imported pages', String(result.importedPages)],
            ['Ingest records', String(result.ingestRecords)],
          ])}\n`,
        );
      }
      return EXIT.ok;
    });
  },
};
