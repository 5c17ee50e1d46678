// When the database goes away (a restart, pg_terminate_backend, a network blip), what is
// safe to try again and for how long. Classification branches on SQLSTATE and errno codes,
// never on message text. The retry budget is shared: a write that retries its transaction
// and the connects inside it draw on one deadline, so a caller waits at most ~10 s.
import { AsyncLocalStorage } from 'node:async_hooks';

/** SQLSTATEs meaning the server ended or refused the session: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now. */
const LOST_STATES = new Set(['57P01', '57P02', '57P03']);
/** Socket-level codes from Node while (re)connecting or talking to the server. */
const LOST_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * The database connection was lost. `committed` says whether the work may have taken
 * effect: 'no' (a connect, or a transaction that never reached COMMIT: safe to run again)
 * or 'unknown' (a lone write statement, or the COMMIT itself: never run again blindly).
 * It deliberately has no `code`: it is not a refusal by the database.
 */
export class ConnectionLostError extends Error {
  override readonly name = 'ConnectionLostError';
  constructor(
    readonly committed: 'no' | 'unknown',
    /** The SQLSTATE or errno of the underlying failure, when it had one. */
    readonly reason: string | undefined,
    options: ErrorOptions,
  ) {
    super(
      committed === 'no'
        ? `the database connection was lost${reason ? ` (${reason})` : ''}; nothing was written`
        : `the database connection was lost${reason ? ` (${reason})` : ''} before the outcome was known; check whether the write is there before repeating it`,
      options,
    );
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether an error means the connection is gone (or the server cannot take one right now). */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof ConnectionLostError) return true;
  const code = codeOf(error);
  if (!code) return false;
  return code.startsWith('08') || LOST_STATES.has(code) || LOST_ERRNOS.has(code);
}

/** The error as a ConnectionLostError (kept when it is one; its `committed` lowered to 'no' when asked). */
export function connectionLost(error: unknown, committed: 'no' | 'unknown'): ConnectionLostError {
  if (error instanceof ConnectionLostError) {
    return error.committed === committed ? error : new ConnectionLostError(committed, error.reason, { cause: error.cause });
  }
  return new ConnectionLostError(committed, codeOf(error), { cause: error });
}

/** Whether running the work again cannot repeat a write: the failure happened before anything could commit. */
export function safeToRetry(error: unknown): boolean {
  return error instanceof ConnectionLostError ? error.committed === 'no' : isConnectionLoss(error);
}

export const RETRY_BUDGET_MS = 10_000;

type Scope = { deadline: number } | { off: true };
const scope = new AsyncLocalStorage<Scope>();

/** Runs fn with no waiting for the database to come back: a failure surfaces at once (readiness checks). */
export function withoutReconnectWait<T>(fn: () => Promise<T>): Promise<T> {
  return scope.run({ off: true }, fn);
}

export interface RetryOptions {
  /** Total time to keep trying, unless an enclosing retry already set a deadline. */
  budgetMs?: number;
  /** Told about each failed attempt that will be tried again. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs fn, and again with exponential backoff (100 ms doubling to 2 s, with jitter) while it
 * fails in a way `retryable` accepts and the deadline allows; then the last error is thrown.
 */
export async function retryOnConnectionLoss<T>(fn: () => Promise<T>, retryable: (error: unknown) => boolean, opts: RetryOptions = {}): Promise<T> {
  const outer = scope.getStore();
  if (outer && 'off' in outer) return fn();
  const deadline = outer?.deadline ?? Date.now() + (opts.budgetMs ?? RETRY_BUDGET_MS);
  const inner: Scope = { deadline };
  for (let attempt = 1; ; attempt++) {
    try {
      return await scope.run(inner, fn);
    } catch (error) {
      const delay = Math.min(2_000, 100 * 2 ** (attempt - 1)) * (0.75 + Math.random() / 2);
      if (!retryable(error) || Date.now() + delay > deadline) throw error;
      opts.onRetry?.(error, attempt, Math.round(delay));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
