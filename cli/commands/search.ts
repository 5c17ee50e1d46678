import { parse, printJson } from '../output.js';
import { CliError } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE } from '../subject-options.js';
import { withToolCalls } from '../tool-calls.js';
import type { Command } from './index.js';

function searchCommand(defaultMode: 'keyword' | 'hybrid', name: string, summary: string): Command {
  const usage = `brain ${name} QUERY... [--mode keyword|semantic|hybrid] [--kind K] [--tag T] [--limit N] [--budget TOKENS] ${SUBJECT_USAGE}`;
  return {
    usage,
    summary,
    async run(args) {
      const { values, positionals } = parse(
        args,
        { ...SUBJECT_OPTIONS, mode: { type: 'string' }, kind: { type: 'string', multiple: true }, tag: { type: 'string', multiple: true }, limit: { type: 'string' }, budget: { type: 'string' } },
        usage,
      );
      const query = positionals.join(' ').trim();
      if (!query) throw new CliError(`a query is needed\nusage: ${usage}`);
      const mode = (values.mode ?? defaultMode) as 'keyword' | 'semantic' | 'hybrid';
      if (!['keyword', 'semantic', 'hybrid'].includes(mode)) throw new CliError('--mode is keyword, semantic or hybrid');
      const input = {
        query,
        mode,
        kinds: values.kind ?? [],
        tags: values.tag ?? [],
        ...(values.limit ? { limit: Number(values.limit) } : {}),
        ...(values.budget ? { budgetTokens: Number(values.budget) } : {}),
      };
      if (values.json) {
        // The structured result is the search service's, in this process (over the running brain's database link when one runs).
        const [{ withToolRunner }, { search: runSearch }] = await Promise.all([import('../tool-runner.js'), import('../../services/search/index.js')]);
        return withToolRunner(values, async (runner, ctx) => {
          printJson(await runSearch(ctx, input, runner.deps.services.search ?? {}));
          return 0;
        });
      }
      return withToolCalls(values, async (tools) => {
        const r = await tools.call('search', input);
        process.stdout.write(`${r.text}\n`);
        return r.ok ? 0 : 1;
      });
    },
  };
}

export const search = searchCommand('keyword', 'search', 'Full-text search (GBrain\'s search): names, terms, "quoted phrases", -exclusions.');
export const query = searchCommand('hybrid', 'query', 'Hybrid search by meaning and words (GBrain\'s query), over this subject and personal.');
