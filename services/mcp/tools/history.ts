import { z } from 'zod';
import { history, restore, targetName } from '../../knowledge/index.js';
import { historyMarkdown } from '../format.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, DESTRUCTIVE } from './types.js';

export const historyTool = defineTool({
  name: 'history',
  description:
    "A card's (slug) or an episode's (episodeId) versions v1, v2... newest first, each with what changed (fields, body line diff). restore: N puts vN back; the replaced state stays as a version.",
  inputSchema: (deps) =>
    z.object({
      slug: slug.optional(),
      episodeId: z.number().optional(),
      restore: z.number().optional().describe('version number'),
      subject: subjectField(deps),
      reason,
    }),
  // restore overwrites the current state (kept as a version, but replaced).
  annotations: DESTRUCTIVE,
  fieldNames: { version: 'restore' },
  async run(a, { ctx }) {
    if (a.restore !== undefined) {
      const r = await restore(ctx, { subject: a.subject, slug: a.slug, episodeId: a.episodeId, version: a.restore, reason: a.reason });
      const name = targetName(r);
      if (!r.changed) return ok(`${name} already reads as v${r.restored}; nothing changed (v${r.current} is current).`);
      if (r.recreated) return ok(`Recreated ${name} as it was in v${r.restored} (it had been deleted); that is now v${r.current}.`);
      return ok(`Restored ${name} to v${r.restored}; that is now v${r.current}, and v${r.current - 1} keeps what it replaced.`);
    }
    const h = await history(ctx, { subject: a.subject, slug: a.slug, episodeId: a.episodeId, limit: 20 });
    const what = a.slug !== undefined ? `slug: "${a.slug}"` : `episodeId: ${a.episodeId}`;
    return ok(historyMarkdown(h, { restoreHint: `Put one back: history with ${what}, restore: N.` }));
  },
});
