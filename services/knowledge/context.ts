// What every domain operation needs: the subject it acts as, that subject's database
// handle (its own role's credentials), and the kind vocabulary read from the database.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Subject } from '../../config/subjects.js';
import { PERSONAL } from '../../config/subjects.js';
import type { KnowledgeDatabase } from '../../db/database.js';
import type { Kind } from '../../config/kinds.js';
import { retryOnConnectionLoss, safeToRetry } from '../../db/connection-loss.js';
import { BrainError } from './errors.js';

export type Db = Kysely<KnowledgeDatabase>;
export type Trx = Transaction<KnowledgeDatabase>;

export interface BrainContext {
  readonly subject: Subject;
  readonly db: Db;
  readonly kinds: readonly Kind[];
}

export async function createContext(subject: Subject, db: Db): Promise<BrainContext> {
  const kinds = await sql<Kind>`SELECT name, class, description FROM brain.kinds ORDER BY class, name`.execute(db);
  return { subject, db, kinds: kinds.rows };
}

/** The order createContext reads brain.kinds in. */
function byClassAndName(a: Kind, b: Kind): number {
  return a.class < b.class ? -1 : a.class > b.class ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * A context whose kinds come from kinds.yaml instead of brain.kinds (which the bootstrap fills
 * from it), in the same order: for a server that answers before its database is open.
 */
export function contextWithKinds(subject: Subject, db: Db, kinds: readonly Kind[]): BrainContext {
  return { subject, db, kinds: [...kinds].sort(byClassAndName) };
}

/** Why a write happens: recorded in the outbox by the triggers, per transaction. */
export interface WriteIntent {
  operation: string;
  reason?: string | undefined;
  detail?: unknown;
}

/**
 * Runs fn in one transaction, with the intent set where the audit triggers read it. If the
 * database connection is lost before COMMIT (a server restart), nothing was written and the
 * whole transaction runs again once the server answers (bounded, db/connection-loss.ts);
 * so fn must leave no trace outside the transaction but its result. A loss during COMMIT is
 * reported, never retried: the write may have happened.
 */
export async function write<T>(ctx: BrainContext, intent: WriteIntent, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return retryOnConnectionLoss(
    () =>
      ctx.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('brain.operation', ${intent.operation}, true),
                         set_config('brain.reason', ${intent.reason ?? ''}, true),
                         set_config('brain.detail', ${intent.detail === undefined ? '' : JSON.stringify(intent.detail)}, true)`.execute(trx);
        return fn(trx);
      }),
    safeToRetry,
  );
}

/**
 * Which schema an operation targets. A project may name `personal` (reads, and writes as
 * an upcast with a reason); any other subject is not reachable, and Postgres would refuse
 * anyway: this check only turns the refusal into a clear message.
 */
export function targetSubject(ctx: BrainContext, requested: string | undefined): string {
  const name = requested ?? ctx.subject.name;
  if (name === ctx.subject.name || name === PERSONAL) return name;
  throw new BrainError(
    'forbidden',
    `this is the "${ctx.subject.name}" brain; it can reach only "${ctx.subject.name}"${ctx.subject.isPersonal ? '' : ' and "personal"'}`,
    `Leave out the subject, or use "${ctx.subject.name}"${ctx.subject.isPersonal ? '' : ' or "personal"'}.`,
  );
}

/** Writes into personal from a project are upcasts: they must say why. */
export function requireUpcastReason(ctx: BrainContext, target: string, reason: string | undefined): void {
  if (target === PERSONAL && !ctx.subject.isPersonal && !reason?.trim()) {
    throw new BrainError(
      'reason_required',
      'a write into personal from a project is an upcast and needs a reason',
      'Say why this is generic knowledge (e.g. "applies to any psycopg3 work"), or keep it in this project.',
    );
  }
}
