import { z } from 'zod';
import { allTags, listTopics, readableSubjects } from '../../knowledge/index.js';
import { topicListMarkdown } from '../format.js';
import { ok } from '../result.js';
import { brainStats } from '../stats.js';
import { subjectField } from './fields.js';
import { defineTool, READ_ONLY } from './types.js';

export const listTool = defineTool({
  name: 'list',
  description: 'Browse without a query: cards (by kind, tag, since), tags with counts, the kinds, or stats.',
  inputSchema: (deps) =>
    z.object({
      what: z.enum(['cards', 'tags', 'kinds', 'stats']).default('cards'),
      subject: subjectField(deps),
      kind: z.string().optional(),
      tag: z.string().optional(),
      since: z.string().optional().describe('YYYY-MM-DD'),
      limit: z.number().int().optional().describe('default 30'),
    }),
  annotations: READ_ONLY,
  fieldNames: { updatedSince: 'since' },
  async run(args, { ctx }) {
    const a = args;
    switch (a.what) {
      case 'kinds':
        return ok(
          ['topic', 'episode']
            .map((cls) => `${cls} kinds:\n${ctx.kinds.filter((k) => k.class === cls).map((k) => `- ${k.name}: ${k.description}`).join('\n')}`)
            .join('\n\n'),
        );
      case 'tags': {
        const tags = await allTags(ctx, { subject: a.subject });
        return ok(tags.length ? tags.map((t) => `${t.tag} (${t.count})`).join(', ') : 'No tags yet.');
      }
      case 'stats':
        return ok(await brainStats(ctx, a.subject ? [a.subject] : readableSubjects(ctx)));
      default: {
        const subjects = a.subject ? [a.subject] : readableSubjects(ctx);
        const rows = [];
        for (const s of subjects) rows.push(...(await listTopics(ctx, { subject: s, kind: a.kind, tag: a.tag, updatedSince: a.since, limit: a.limit ?? 30 })));
        return ok(topicListMarkdown(rows.slice(0, a.limit ?? 30)));
      }
    }
  },
});
