// Every failure of the domain layer is a BrainError with a stable code, a message that
// says what went wrong and a hint that says what to do. The MCP tools hand both to the
// model as a tool result it can recover from; the CLI prints them.
import { ConnectionLostError } from '../../db/connection-loss.js';
import { sqlState } from '../../db/sql.js';

export type BrainErrorCode =
  | 'invalid_input'
  | 'unknown_kind'
  | 'wrong_kind_class'
  | 'not_found'
  | 'already_exists'
  | 'denied_by_deny_list'
  | 'reason_required'
  | 'forbidden'
  | 'invalid_link'
  | 'conflict'
  | 'unavailable'
  | 'insufficient_scope';

export class BrainError extends Error {
  override readonly name = 'BrainError';
  constructor(
    readonly code: BrainErrorCode,
    message: string,
    readonly hint: string,
    options?: ErrorOptions & { details?: Record<string, unknown> },
  ) {
    super(message, options);
    this.details = options?.details ?? {};
  }
  readonly details: Record<string, unknown>;

  toJSON() {
    return { code: this.code, message: this.message, hint: this.hint, ...this.details };
  }
}

interface DbErrorFields {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  constraint?: string;
}

/** The BrainError for any failure: BrainErrors pass through, database errors are mapped. */
export function asBrainError(error: unknown, what: string): unknown {
  if (error instanceof BrainError) return error;
  try {
    fromDatabaseError(error, what);
  } catch (mapped) {
    return mapped;
  }
  return error;
}

/**
 * Turns a database error into a BrainError, branching on SQLSTATE (and the constraint
 * name Postgres reports), never on message text. Unknown errors are rethrown as they are.
 */
export function fromDatabaseError(error: unknown, what: string): never {
  if (error instanceof ConnectionLostError) {
    throw new BrainError(
      'unavailable',
      `${what}: ${error.message}`,
      error.committed === 'no'
        ? 'The database is away (restarting?) and did not come back in time; try again shortly.'
        : 'Read the card (get) to see whether the write is there before repeating it.',
      { cause: error },
    );
  }
  const state = sqlState(error);
  const e = (error ?? {}) as DbErrorFields;
  switch (state) {
    case 'BRD01':
      throw new BrainError('denied_by_deny_list', e.message ?? 'refused by the deny-list', e.hint ?? 'Keep this card in its project instead.', {
        cause: error,
        details: { rule: e.detail },
      });
    case '42501':
      throw new BrainError('forbidden', `${what}: not permitted for this subject`, 'This subject cannot do that; work within this subject, or upcast into personal with a reason.', { cause: error });
    case '25006':
      // A read-only transaction (an OAuth token with brain:read only, services/auth/session-db.ts).
      throw new BrainError('insufficient_scope', `${what}: this connection is read-only (its token has brain:read only)`, 'Reconnect with a token approved for brain:write to change anything.', { cause: error });
    case '23505':
      throw new BrainError('already_exists', `${what}: it already exists`, 'Update the existing record instead, or choose another slug.', { cause: error });
    case '23514':
      throw new BrainError('invalid_input', `${what}: ${e.message ?? 'a check failed'}`, e.hint ?? 'Correct the value and try again.', { cause: error });
    case '23503':
      throw new BrainError('invalid_input', `${what}: it refers to something that does not exist`, 'Check the slugs and kinds you passed.', { cause: error });
    case '22007':
    case '22008':
      throw new BrainError('invalid_input', `${what}: not a valid date or time`, 'Use ISO 8601, e.g. 2026-11-29 or 2026-11-29T14:30:00Z.', { cause: error });
    default:
      throw error;
  }
}

/** The SQLSTATE of a database error, or undefined for anything else. */
export { sqlState as sqlStateOf } from '../../db/sql.js';
