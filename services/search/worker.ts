// The embed worker: a loop in the subject's server that embeds that subject's pending cards
// in batches. Writes never wait for it: they only change updated_at, which makes a card
// pending. When the embedder is down the worker backs off exponentially (capped) and says
// so in status(); search reads that status to warn that semantic results may be missing.
// It only ever embeds its own schema: personal's server embeds personal, so a project that
// upcasts into personal never needs (or has) write access to personal's embeddings.
import { asBackgroundWork, BrainAsleepError } from '../../db/work-order.js';
import { EmbedderUnavailableError, type Embedder } from '../embeddings/embedder.js';
import type { BrainContext } from '../knowledge/context.js';
import { embedPendingBatch, modelOf } from './embed-cards.js';
import { countPending, pendingSince, quietLookStart } from './pending.js';
import { subjectsWithVectors } from './vectors.js';

export type EmbedState = 'ok' | 'degraded' | 'off';

export interface EmbedStatus {
  /** ok: keeping up; degraded: the last attempt failed (see lastError), retrying; off: stopped, or no pgvector. */
  state: EmbedState;
  /** Cards of this subject not yet embedded with this model, as of the last check. */
  pending: number;
  lastError?: string;
  model: string;
  dims: number;
}

/** pino's (obj, msg) shape, so a pino logger can be passed as it is. */
export interface WorkerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EmbedWorkerOptions {
  ctx: BrainContext;
  embedder: Embedder;
  batchSize: number;
  /** Idle wait between checks for new work, and the first retry delay after a failure. */
  pollMs: number;
  /** Upper bound of the retry delay; default 60 s or pollMs, whichever is larger. */
  maxBackoffMs?: number;
  /**
   * Wait before the first check (default none). A starting server passes a second or so: every
   * query runs on the main thread in the embedded brain, so its listening and banner go first.
   */
  firstDelayMs?: number;
  /** While nothing is pending, a full look at most this often; while the embedder fails, a pending count at most this often (default FULL_LOOK_MS). */
  fullLookMs?: number;
  logger?: WorkerLogger;
}

export interface EmbedWorker {
  stop(): Promise<void>;
  status(): EmbedStatus;
  /** Works now (skipping any wait) and resolves once nothing is pending; rejects if the worker stops first. */
  drain(): Promise<void>;
}

/** What a retry embeds before it reads a batch again (see step). */
export const RETRY_PROBE = 'embedder check';

/** What a step that read no batch reports. */
const NOTHING_READ = Object.freeze({ embedded: 0, unchanged: 0, chunks: 0, seen: 0 });

/** The pause between two batches while work remains. */
const BETWEEN_BATCHES_MS = 20;
/** How often the pending count is taken for real while the worker is busy (at least). */
const RECOUNT_MS = 5_000;
/**
 * ... and at most this share of the time goes to counting: a count visits every card (about
 * 50 ms at 71,000 cards, 700 at 955,000), so a big brain's backlog is counted every 14 s, not 5.
 */
const RECOUNT_SHARE = 0.05;
/**
 * While nothing is pending, how often the worker still looks at every card (a full look: the
 * pending count, then the pending cards if there are any). In between, each poll asks only whether a card changed since
 * the last full look is pending (pending.ts, pendingSince): at 7,500 GBrain pages (71,000 cards,
 * every one embedded) a full look took 188-194 ms of the database's one thread every two seconds
 * of an awake embedded server, the short one 1.9 ms (docs/retrieval.md, "The worker"). A full
 * look still comes this often for what no card's updated_at shows: embeddings deleted to be made
 * again (`brain reembed`, lint's re-queue), by another process or a tool call.
 */
export const FULL_LOOK_MS = 60_000;

export const NO_VECTORS = 'pgvector is not installed on this database: embeddings are off and search is keyword-only';

export function startEmbedWorker(opts: EmbedWorkerOptions): EmbedWorker {
  const { ctx, embedder, logger } = opts;
  if (!Number.isInteger(opts.batchSize) || opts.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${opts.batchSize}`);
  if (!(opts.pollMs > 0)) throw new RangeError(`pollMs must be positive, got ${opts.pollMs}`);
  const m = modelOf(embedder);
  const maxBackoff = Math.max(opts.maxBackoffMs ?? 60_000, opts.pollMs);
  const status: EmbedStatus = { state: 'ok', pending: 0, model: m.model, dims: m.dims };
  let failures = 0;
  let countedAt = 0;
  let countMs = 0;
  const count = async () => {
    const started = performance.now();
    status.pending = await countPending(ctx.db, ctx.subject.name, m);
    countMs = performance.now() - started;
    countedAt = Date.now();
  };
  // Set by a full look that found nothing pending: where a later short look starts (the
  // database's clock, quietLookStart) and when that full look ran (this process's clock).
  let quiet: { since: string; at: number } | undefined;
  let fullLookWanted = false;
  let stopped = false;
  // Stopping does not wait for a batch in the embedder (seconds on the offline model): it is dropped, and written again later.
  const stopping = new AbortController();
  let wake: (() => void) | undefined;
  let drainers: { resolve: () => void; reject: (e: Error) => void }[] = [];

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const settleDrainers = () => {
    if (status.pending !== 0 || drainers.length === 0) return;
    const waiting = drainers;
    drainers = [];
    for (const d of waiting) d.resolve();
  };

  /**
   * One step; returns how long to wait before the next. Background work (db/work-order.ts): an
   * embedded brain asleep while idle is not woken to look for pending cards, and looking does
   * not keep it awake; cards embedded and written do, until none is left.
   */
  const tick = (): Promise<number> => asBackgroundWork((work) => step(() => work.foreground()));
  const step = async (found: () => void): Promise<number> => {
    const stepStart = Date.now();
    if ((await subjectsWithVectors(ctx.db, [ctx.subject.name])).length === 0) {
      status.state = 'off';
      status.pending = 0;
      status.lastError = NO_VECTORS;
      settleDrainers();
      return Math.max(opts.pollMs, 60_000);
    }
    try {
      // Retrying after a failure, the embedder is asked first: a batch read for an embedder still
      // down cost the database's one thread 35-72 ms at 7,500 pages at every retry, in front of
      // whatever search came meanwhile. The embedder's health costs the database nothing.
      // Health says the model is there, not that it embeds: Ollama lists a model it cannot load
      // (too little memory) and then refuses every batch. So one short text goes first, and a
      // retry against an embedder that still refuses reads no batch either.
      if (failures > 0) {
        const health = await embedder.health();
        if (!health.ok) throw new EmbedderUnavailableError(health.reason ?? `${m.model} is not answering`);
        await embedder.embedDocuments([RETRY_PROBE], { signal: stopping.signal });
      }
      // A full look: the first step, and after a quiet spell the periodic one or drain()'s.
      let fullLook = countedAt === 0;
      if (quiet) {
        if (!fullLookWanted && Date.now() - quiet.at < (opts.fullLookMs ?? FULL_LOOK_MS)) {
          if (!(await pendingSince(ctx.db, ctx.subject.name, m, quiet.since))) return opts.pollMs;
        } else {
          fullLook = true;
        }
      }
      quiet = undefined;
      fullLookWanted = false;
      const since = await quietLookStart(ctx.db);
      // A full look counts first (what is pending is known before a batch, which may take a
      // while), and reads no batch when nothing is: the batch's statement looks for the most
      // recently changed pending cards, and with none it visits every card in one go (in front
      // of every request; the count goes in slices).
      if (fullLook) await count();
      const nothing = fullLook && status.pending === 0;
      const r = nothing ? NOTHING_READ : await embedPendingBatch(ctx, embedder, { batchSize: opts.batchSize, signal: stopping.signal, beforeWrite: found });
      // Counting is a scan of the subject's cards: while work keeps coming, an estimate does,
      // and the real count is taken when the queue looks empty or every few seconds.
      const recount = !nothing && (r.seen === 0 || Date.now() - countedAt >= Math.max(RECOUNT_MS, countMs / RECOUNT_SHARE));
      if (recount) await count();
      if (nothing || recount) {
        if (r.seen === 0 && status.pending === 0) quiet = { since, at: Date.now() };
        settleDrainers(); // only on a real count: the estimate can reach 0 early
      } else {
        status.pending = Math.max(0, status.pending - r.embedded - r.unchanged);
      }
      if (failures > 0) logger?.info({ subject: ctx.subject.name, model: m.model }, 'embedder is back; embedding resumed');
      failures = 0;
      status.state = 'ok';
      delete status.lastError;
      if (r.embedded > 0) logger?.info({ subject: ctx.subject.name, embedded: r.embedded, chunks: r.chunks, pending: status.pending }, 'embedded cards');
      // Work found means there is probably more: go on after a pause that lets every waiting
      // request (HTTP, a tool call queued for the database) go first.
      return r.seen > 0 ? BETWEEN_BATCHES_MS : opts.pollMs;
    } catch (error) {
      if (stopped) return 0; // the batch was dropped on purpose
      if (error instanceof BrainAsleepError) return opts.pollMs; // nothing to do until the brain is used again
      // The pending count at the first failure (cards written while all was quiet are not yet
      // counted), then at most once a full look's interval: counting reads every card (59-91 ms
      // of an embedded brain's one thread, 269 cold, at 7,500 pages with 46,925 pending; the
      // batch a retry reads 35-72 ms), and an embedder that stays down is retried every 2, 4,
      // 8 ... 60 s, each retry in front of whatever search came meanwhile.
      // A count this step already took (a full look's) is not taken again.
      if ((failures === 0 && countedAt < stepStart) || Date.now() - countedAt >= (opts.fullLookMs ?? FULL_LOOK_MS)) {
        await count().catch(() => undefined); // the database failing too: the last count stands
      }
      failures++;
      status.state = 'degraded';
      status.lastError = error instanceof Error ? error.message : String(error);
      const delay = Math.min(maxBackoff, opts.pollMs * 2 ** Math.min(failures - 1, 30));
      logger?.warn({ subject: ctx.subject.name, model: m.model, failures, retryInMs: delay, err: status.lastError }, 'embedding failed; will retry');
      return delay;
    }
  };

  const loop = (async () => {
    if (opts.firstDelayMs && opts.firstDelayMs > 0) await sleep(opts.firstDelayMs);
    while (!stopped) {
      const delay = await tick().catch((error: unknown) => {
        if (error instanceof BrainAsleepError) return opts.pollMs;
        // Only the availability check can get here (the database itself is failing).
        status.state = 'degraded';
        status.lastError = error instanceof Error ? error.message : String(error);
        return maxBackoff;
      });
      if (stopped) break;
      if (delay > 0) await sleep(delay);
    }
  })();

  return {
    status: () => ({ ...status }),
    drain() {
      if (stopped) return Promise.reject(new Error('the embed worker is stopped'));
      const p = new Promise<void>((resolve, reject) => drainers.push({ resolve, reject }));
      fullLookWanted = true;
      wake?.();
      return p;
    },
    async stop() {
      stopped = true;
      stopping.abort(new Error('the embed worker stopped'));
      wake?.();
      await loop;
      status.state = 'off';
      const waiting = drainers;
      drainers = [];
      for (const d of waiting) d.reject(new Error('the embed worker stopped before the queue drained'));
    },
  };
}
