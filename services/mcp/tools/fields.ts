// Input fields shared by several tools, described once and briefly: tool definitions are
// loaded into every session's context window.
import { z } from 'zod';
import { PERSONAL } from '../../../config/subjects.js';
import { slug as slugSchema } from '../../knowledge/schemas.js';
import type { ToolDeps } from './types.js';

export const slug = slugSchema.describe('card slug, e.g. tool/psycopg3');

/** The subject parameter exists only where there is a choice: a project may name personal. */
export function subjectField(deps: ToolDeps) {
  const own = deps.ctx.subject.name;
  return deps.ctx.subject.isPersonal
    ? z.literal(PERSONAL).optional().describe('always personal here')
    : z.enum([own, PERSONAL]).optional().describe(`${own} (default) or personal`);
}

export const reason = z.string().trim().min(1).max(2000).optional().describe('why; required for writes into personal from a project');
