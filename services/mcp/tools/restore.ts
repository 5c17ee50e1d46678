import { z } from 'zod';
import { restore } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, subjectField } from './fields.js';
import { defineTool, DESTRUCTIVE } from './types.js';

export const restoreTool = defineTool({
  name: 'restore',
  title: 'Restore an earlier version',
  description: 'Put a card or episode back as it was in a version from history. The state it replaces is kept as a new version, so a restore can itself be undone.',
  inputSchema: (deps) => z.object({ versionId: z.number().int().positive(), subject: subjectField(deps), reason }),
  annotations: DESTRUCTIVE,
  async run(a, { ctx }) {
    const r = await restore(ctx, a);
    return ok(`${r.recreated ? 'Recreated' : 'Restored'} ${r.entity} ${r.id} from version ${r.restoredFrom}.`);
  },
});
