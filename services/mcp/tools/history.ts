import { z } from 'zod';
import { history, restore } from '../../knowledge/index.js';
import { versionLine } from '../format.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, DESTRUCTIVE } from './types.js';

export const historyTool = defineTool({
  name: 'history',
  description:
    'List earlier versions of a card (slug) or episode (episodeId), newest first: every update and delete keeps the previous state. With restore (a version id) put that version back; the replaced state is kept too, so a restore can be undone.',
  inputSchema: (deps) =>
    z.object({
      slug: slug.optional(),
      episodeId: z.number().int().optional(),
      restore: z.number().int().optional().describe('version id to restore'),
      subject: subjectField(deps),
      reason,
    }),
  annotations: DESTRUCTIVE,
  async run(a, { ctx }) {
    if (a.restore !== undefined) {
      const r = await restore(ctx, { subject: a.subject, versionId: a.restore, reason: a.reason });
      return ok(`${r.recreated ? 'Recreated' : 'Restored'} ${r.entity} ${r.id} from version ${r.restoredFrom}.`);
    }
    const versions = await history(ctx, { subject: a.subject, slug: a.slug, episodeId: a.episodeId, limit: 20 });
    return ok(versions.length ? versions.map(versionLine).join('\n') : 'No earlier versions.');
  },
});
