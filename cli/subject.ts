// What every knowledge command shares: which subject it acts as, opening that subject's
// brain with its own role (openSubject: its credentials, never the admin's), and turning
// a BrainError into `brain: <message>` / `  hint: <hint>` and an exit code.
//
// The subject: --subject NAME, else the BRAIN_SUBJECT environment variable, else
// "personal" (the shared subject every project can read; writes there go through the
// deny-list). Exit codes: 0 ok, 1 failed, 2 usage or configuration error, 3 not found.
import { loadRuntimeConfig, type RuntimeConfig } from '../config/runtime.js';
import { PERSONAL } from '../config/subjects.js';
import { openSubject } from '../db/open.js';
import { asBrainError, BrainError, createContext, type BrainContext } from '../services/knowledge/index.js';
import { chooseEmbedder, pendingNote } from '../services/runtime/embedding.js';
import { printJson } from './output.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

/** The options every subject command takes. */
export const SUBJECT_OPTIONS = {
  subject: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const SUBJECT_USAGE = '[--subject NAME] [--json]';

export function subjectFrom(values: { subject?: string | undefined }, env: NodeJS.ProcessEnv = process.env): string {
  return values.subject ?? (env.BRAIN_SUBJECT || PERSONAL);
}

/**
 * Opens the subject, runs the command, closes; BrainErrors become a message, a hint and an
 * exit code. A command that writes cards passes `writes`: it embeds nothing itself, so it
 * says on stderr how many cards wait to be embedded and what embeds them.
 */
export async function withSubject(
  values: { subject?: string | undefined; json?: boolean | undefined },
  run: (ctx: BrainContext) => Promise<number>,
  opts: { writes?: boolean } = {},
): Promise<number> {
  const rt = loadRuntimeConfig();
  const conn = await openSubject(rt, subjectFrom(values));
  try {
    const ctx = await createContext(conn.subject, conn.handle.db);
    try {
      return await run(ctx);
    } finally {
      if (opts.writes) await notePending(ctx, rt);
    }
  } catch (error) {
    return reportError(error, values.json === true);
  } finally {
    await conn.close();
  }
}

async function notePending(ctx: BrainContext, rt: RuntimeConfig): Promise<void> {
  const choice = await chooseEmbedder(rt).catch(() => undefined);
  const note = choice && (await pendingNote(ctx, choice).catch(() => undefined));
  if (note) process.stderr.write(`Note: ${note}\n`);
}

/** Prints a BrainError (or a database error it maps to) and returns its exit code; anything else is rethrown. */
export function reportError(error: unknown, json: boolean): number {
  const e = asBrainError(error, 'brain');
  if (!(e instanceof BrainError)) throw e;
  process.stderr.write(`brain: ${e.message}\n  hint: ${e.hint}\n`);
  if (json) printJson({ error: e.toJSON() });
  return exitCodeFor(e);
}

export function exitCodeFor(e: BrainError): number {
  switch (e.code) {
    case 'not_found':
      return EXIT.notFound;
    case 'invalid_input':
    case 'unknown_kind':
    case 'wrong_kind_class':
    case 'reason_required':
      return EXIT.usage;
    default:
      return EXIT.failed;
  }
}
