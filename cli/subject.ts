// What every knowledge command shares: which subject it acts as (cli/subject-options.ts),
// opening that subject's brain with its own role (openSubject: its credentials, never the
// admin's; through the running brain's database link when one runs), and turning a
// BrainError into `brain: <message>` / `  hint: <hint>` and an exit code.
import { loadRuntimeConfig, type RuntimeConfig } from '../config/runtime.js';
import { maintainEmbedded } from '../db/embedded-maintenance.js';
import { openSubject } from '../db/open.js';
import { asBrainError, BrainError, createContext, type BrainContext } from '../services/knowledge/index.js';
import { chooseEmbedder, pendingNote } from '../services/runtime/embedding.js';
import { printJson } from './output.js';
import { EXIT, subjectFrom } from './subject-options.js';

export { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, subjectFrom } from './subject-options.js';

/** Where the command's statements run: this process, or a running brain's (its database link). */
export interface SubjectSession {
  /** "brain up (process 1234)" when a running brain holds the data directory. */
  readonly linkedTo?: string | undefined;
  /**
   * After a bulk write: analyses (and vacuums) what changed, as a serving brain's maintenance
   * would (db/embedded-maintenance.ts). Only when this process holds the embedded brain: a
   * server has autovacuum, and a running brain reached through its link maintains itself.
   */
  readonly maintain?: (() => Promise<unknown>) | undefined;
}

/**
 * Opens the subject, runs the command, closes; BrainErrors become a message, a hint and an
 * exit code. A command that writes cards passes `writes`: it embeds nothing itself, so it
 * says on stderr how many cards wait to be embedded and what embeds them (unless a running
 * brain, whose worker embeds them, ran its statements).
 */
export async function withSubject(
  values: { subject?: string | undefined; json?: boolean | undefined },
  run: (ctx: BrainContext, session: SubjectSession) => Promise<number>,
  opts: { writes?: boolean } = {},
): Promise<number> {
  const rt = loadRuntimeConfig();
  // One-shot: its close need not ask Postgres what it already knows (openAdmin's close).
  const conn = await openSubject(rt, subjectFrom(values), undefined, { oneShot: true });
  try {
    const ctx = await createContext(conn.subject, conn.handle.db);
    try {
      const embedded = conn.embedded;
      return await run(ctx, { linkedTo: conn.linkedTo, maintain: embedded && (() => maintainEmbedded(embedded)) });
    } finally {
      if (opts.writes && !conn.linkedTo) await notePending(ctx, rt);
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
