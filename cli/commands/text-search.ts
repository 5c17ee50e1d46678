import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { reindexTextSearch, setTextSearchConfig, type ReindexReport } from '../../services/search/text-search-config.js';
import { CliError, parse, printJson } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain text-search [LANGUAGE | --reindex] [--json]';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
const counts = (r: ReindexReport['reindexed']) => r.map((s) => `${s.subject} ${plural(s.topics, 'card')}, ${plural(s.episodes, 'episode')}`).join('; ');

export const textSearch: Command = {
  usage,
  summary:
    'Show the full-text search language; LANGUAGE (german, simple, …) changes it and reindexes every subject in one transaction; --reindex redoes the index as it is. Admin: needs the admin URL on a server.',
  async run(args) {
    const { values, positionals } = parse(args, { reindex: { type: 'boolean' }, json: { type: 'boolean' } }, usage);
    const [language, ...extra] = positionals;
    if (extra.length || (language && values.reindex)) throw new CliError(`give a language or --reindex, not both\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    const subjects = loadSubjects(rt.subjectsFile).subjects.map((s) => s.name);
    const admin = await openAdmin(rt);
    try {
      // Every subject in subjects.yaml provisioned and migrated, as the reindex touches them all.
      await runBootstrap(rt, admin);
      const configs = async () => (await admin.session.query<{ cfg: string }>('SELECT cfgname AS cfg FROM pg_ts_config ORDER BY 1')).map((r) => r.cfg);
      if (language) {
        // Checked here so the refusal can list what the database has (the cast would refuse it too).
        const known = await configs();
        if (!known.includes(language)) throw new CliError(`"${language}" is not a text-search configuration of this database; it has: ${known.join(', ')}`);
        const report = await setTextSearchConfig(admin.session, language, subjects);
        if (values.json) printJson(report);
        else process.stdout.write(`Text search: ${report.config} (was ${report.previous}). Reindexed ${counts(report.reindexed)}.\n`);
      } else if (values.reindex) {
        const reindexed = await reindexTextSearch(admin.session, subjects);
        if (values.json) printJson({ reindexed });
        else process.stdout.write(`Reindexed ${counts(reindexed)}.\n`);
      } else {
        const [row] = await admin.session.query<{ cfg: string }>('SELECT brain.text_search_config()::text AS cfg');
        if (values.json) printJson({ config: row!.cfg, available: await configs() });
        else process.stdout.write(`Text search: ${row!.cfg}. Change it with \`brain text-search LANGUAGE\`, one of: ${(await configs()).join(', ')}.\n`);
      }
      return 0;
    } finally {
      await admin.close();
    }
  },
};
