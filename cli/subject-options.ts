// The options every subject command takes, and which subject it acts as: --subject NAME,
// else the BRAIN_SUBJECT environment variable, else "personal" (the shared subject every
// project can read; writes there go through the deny-list). Apart from cli/subject.ts so
// that a command answered by a running brain (cli/tool-calls.ts) loads no database code.
import { PERSONAL } from '../config/subjects.js';

/** Exit codes: 0 ok, 1 failed, 2 usage or configuration error, 3 not found. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

export const SUBJECT_OPTIONS = {
  subject: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const SUBJECT_USAGE = '[--subject NAME] [--json]';

export function subjectFrom(values: { subject?: string | undefined }, env: NodeJS.ProcessEnv = process.env): string {
  return values.subject ?? (env.BRAIN_SUBJECT || PERSONAL);
}
