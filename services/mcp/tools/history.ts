import { z } from 'zod';
import { history } from '../../knowledge/index.js';
import { versionLine } from '../format.js';
import { ok } from '../result.js';
import { slug, subjectField } from './fields.js';
import { defineTool, READ_ONLY } from './types.js';

export const historyTool = defineTool({
  name: 'history',
  title: 'Earlier versions of a card or episode',
  description: 'List earlier versions (every update and delete keeps the previous state), newest first, to see what changed or to pick a version for restore.',
  inputSchema: (deps) =>
    z.object({
      slug: slug.optional(),
      episodeId: z.number().int().positive().optional(),
      subject: subjectField(deps),
      limit: z.number().int().min(1).max(100).optional(),
    }),
  annotations: READ_ONLY,
  async run(a, { ctx }) {
    const versions = await history(ctx, { ...a, limit: a.limit ?? 20 });
    return ok(versions.length ? versions.map(versionLine).join('\n') : 'No earlier versions.');
  },
});
