// Input fields shared by several tools, described once and briefly: tool definitions are
// loaded into every session's context window.
import { z } from 'zod';
import { PERSONAL } from '../../../config/subjects.js';
import type { ToolDeps } from './types.js';

// Tool schemas stay lean (no lengths or patterns): the services validate every input
// with the full zod schemas and answer with a field-naming error and a hint.
export const slug = z.string().describe('card slug, e.g. tool/psycopg3');

/** The subject: this one by default; a project may name personal. */
export function subjectField(deps: ToolDeps) {
  const own = deps.ctx.subject.name;
  return deps.ctx.subject.isPersonal
    ? z.literal(PERSONAL).optional()
    : z.enum([own, PERSONAL]).optional();
}

/** Why: recorded in the audit outbox; required for writes into personal (server instructions say so). */
export const reason = z.string().optional();
