// How lint uses the database without starving anything else: at most one lint per subject
// database handle at a time (a second one waits a bounded time, then is told the subject is
// busy), every statement in its own short read-only transaction under a statement_timeout,
// work over many cards cut into batches sized to take about `targetBatchMs` each, the
// connection handed back between batches, and a cancellation signal checked before each one.
//
// In server mode a lint therefore holds at most one of the subject's pooled connections, and
// for one batch at a time; in the embedded brain (one PGlite, one statement at a time for
// every subject) a search waits at most one batch. PGlite ignores statement_timeout (it has
// no timer signals), so there the batch size is the only bound.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql } from 'kysely';
import { sqlState } from '../../db/sql.js';
import { BrainError, type BrainContext, type Trx } from '../knowledge/index.js';

export interface LintRunOptions {
  /** Stops lint between batches (and while it waits for another lint) when aborted. */
  signal?: AbortSignal | undefined;
  /** How long to wait for another lint of this subject to finish before answering busy (default 10 s). */
  waitMs?: number;
  /** statement_timeout of every lint statement (default 5 s; server mode only, PGlite has none). */
  statementTimeoutMs?: number;
  /** What one batch should take (default 100 ms): batch sizes adapt to it. */
  targetBatchMs?: number;
  /** Called after each statement, for tests and benchmarks (e.g. to cancel at a known point). */
  onStep?: (step: LintStepInfo) => void | Promise<void>;
}

export interface LintStepInfo {
  /** Which check ran: 'orphans', 'title-trigrams', 'embedding-pairs', ... */
  check: string;
  /** How many items (cards, pairs) the statement covered; 1 for a single query. */
  items: number;
  ms: number;
}

export const LINT_DEFAULTS = { waitMs: 10_000, statementTimeoutMs: 5_000, targetBatchMs: 100 } as const;

/** One running lint: its context, its limits, and the only way its checks reach the database. */
export interface LintRun {
  readonly ctx: BrainContext;
  readonly signal: AbortSignal | undefined;
  /** Throws the cancellation error when the caller has given up. */
  throwIfCancelled(): void;
  /** Runs fn in its own short read-only transaction under the statement timeout; yields afterwards. */
  step<T>(check: string, fn: (trx: Trx) => Promise<T>, items?: number): Promise<T>;
  /** Runs fn over `items` in consecutive batches, each one step, sized to take about targetBatchMs. */
  batches<I>(check: string, items: readonly I[], fn: (trx: Trx, batch: I[]) => Promise<void>, size?: { initial?: number; min?: number; max?: number }): Promise<void>;
  /** Lets other work (searches, the event loop) in between two pieces of lint's own computing. */
  pause(): Promise<void>;
}

/** One lint at a time per database handle: FIFO waiters, each with its own deadline. */
class LintGate {
  holder: { startedAt: number } | undefined;
  private readonly waiters: (() => void)[] = [];

  async acquire(subject: string, waitMs: number, signal: AbortSignal | undefined): Promise<() => void> {
    if (!this.holder) return this.take();
    return new Promise<() => void>((resolve, reject) => {
      const wake = () => {
        cleanup();
        resolve(this.take());
      };
      const timer = setTimeout(() => {
        cleanup();
        const running = this.holder ? Math.round((Date.now() - this.holder.startedAt) / 1000) : 0;
        reject(
          new BrainError(
            'unavailable',
            `lint of "${subject}" is busy: another lint has been running for ${running} s, and only one runs at a time so that searches keep their connections`,
            'Wait a minute and call lint again; its report is the same unless cards changed meanwhile.',
            { details: { reason: 'busy' } },
          ),
        );
      }, waitMs);
      const onAbort = () => {
        cleanup();
        reject(cancelled(subject));
      };
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
    });
  }

  private take(): () => void {
    const holder = { startedAt: Date.now() };
    this.holder = holder;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holder = undefined;
      this.waiters[0]?.();
    };
  }
}

const gates = new WeakMap<object, LintGate>();

function gateOf(ctx: BrainContext): LintGate {
  let gate = gates.get(ctx.db);
  if (!gate) gates.set(ctx.db, (gate = new LintGate()));
  return gate;
}

/** Whether a lint of this context's database is running now (for tests and status). */
export function lintRunning(ctx: BrainContext): boolean {
  return gates.get(ctx.db)?.holder !== undefined;
}

function cancelled(subject: string): BrainError {
  return new BrainError('unavailable', `lint of "${subject}" was cancelled before it finished; nothing was applied`, 'Run lint again when you want its report.', {
    details: { reason: 'cancelled' },
  });
}

function timedOut(subject: string, check: string, ms: number, cause: unknown): BrainError {
  return new BrainError(
    'unavailable',
    `lint of "${subject}" stopped: one of its statements (${check}) ran longer than ${ms} ms, the most lint may hold a connection; nothing was applied`,
    'The database is very busy or the subject very large; try lint again later.',
    { cause, details: { reason: 'timeout' } },
  );
}

/**
 * Runs `body` as the subject's only lint, waiting up to `waitMs` for a running one to end.
 * The run is released however body ends (result, error, cancellation).
 */
export async function withLintRun<T>(ctx: BrainContext, opts: LintRunOptions, body: (run: LintRun) => Promise<T>): Promise<T> {
  const subject = ctx.subject.name;
  const signal = opts.signal;
  if (signal?.aborted) throw cancelled(subject);
  const release = await gateOf(ctx).acquire(subject, opts.waitMs ?? LINT_DEFAULTS.waitMs, signal);
  try {
    return await body(createLintRun(ctx, opts));
  } finally {
    release();
  }
}

/** A run without the gate (for hooks called outside lint); withLintRun is the entry point. */
export function createLintRun(ctx: BrainContext, opts: LintRunOptions = {}): LintRun {
  const subject = ctx.subject.name;
  const timeoutMs = opts.statementTimeoutMs ?? LINT_DEFAULTS.statementTimeoutMs;
  const target = opts.targetBatchMs ?? LINT_DEFAULTS.targetBatchMs;
  const run: LintRun = {
    ctx,
    signal: opts.signal,
    throwIfCancelled() {
      if (opts.signal?.aborted) throw cancelled(subject);
    },
    async pause() {
      await yieldToEventLoop();
      run.throwIfCancelled();
    },
    async step(check, fn, items = 1) {
      run.throwIfCancelled();
      let ms = 0;
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await ctx.db
          .transaction()
          .setAccessMode('read only')
          .execute(async (trx) => {
            await sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(trx);
            const started = performance.now();
            const r = await fn(trx);
            ms = performance.now() - started;
            return r;
          });
      } catch (error) {
        if (sqlState(error) === '57014') throw timedOut(subject, check, timeoutMs, error);
        throw error;
      }
      await opts.onStep?.({ check, items, ms });
      await run.pause();
      return result;
    },
    async batches(check, items, fn, size = {}) {
      const min = size.min ?? 1;
      const max = size.max ?? 2_000;
      let n = Math.min(max, Math.max(min, size.initial ?? 50));
      for (let i = 0; i < items.length; ) {
        const batch = items.slice(i, i + n);
        let ms = 0;
        await run.step(
          check,
          async (trx) => {
            const started = performance.now();
            await fn(trx, batch);
            ms = performance.now() - started;
          },
          batch.length,
        );
        i += batch.length;
        // Aim the next batch at the target time: at most double, at least a quarter of this one.
        const factor = Math.min(2, Math.max(0.25, target / Math.max(ms, 1)));
        n = Math.min(max, Math.max(min, Math.round(batch.length * factor)));
      }
    },
  };
  return run;
}
