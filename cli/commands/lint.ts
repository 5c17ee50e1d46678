import { lint as runLint, lintMarkdown } from '../../services/curation/lint.js';
import { embeddingLintHooks } from '../../services/curation/lint-hooks.js';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { chooseEmbedder } from '../../services/runtime/embedding.js';
import { parse, printJson } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain lint [--apply-dead-links] [--merge-tags] [--requeue-embeddings] ${SUBJECT_USAGE}`;

export const lint: Command = {
  usage,
  summary: 'Report orphans, dead links, unexplained upcasts, near-duplicate cards and tags, stale embeddings; the flags apply the fixes lint may make (never deleting a card).',
  async run(args) {
    const { values } = parse(
      args,
      { ...SUBJECT_OPTIONS, 'apply-dead-links': { type: 'boolean' }, 'merge-tags': { type: 'boolean' }, 'requeue-embeddings': { type: 'boolean' } },
      usage,
    );
    const choice = await chooseEmbedder(loadRuntimeConfig());
    return withSubject(values, async (ctx) => {
      const report = await runLint(
        ctx,
        { apply: { deadLinks: values['apply-dead-links'] ?? false, mergeTags: values['merge-tags'] ?? false, requeueEmbeddings: values['requeue-embeddings'] ?? false } },
        choice.embedder ? embeddingLintHooks(choice.embedder) : {},
      );
      if (values.json) printJson(report);
      else process.stdout.write(`${lintMarkdown(report)}\n`);
      return 0;
    });
  },
};
