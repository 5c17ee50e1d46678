// The offline model's threads. TensorFlow.js's WebAssembly backend has no threads of its own in
// Node, so one model instance uses one core: the pool runs a primary thread, and while a backlog
// of documents waits (the embedding worker after an import) helper threads with a model each,
// which stop again soon after the backlog is gone. Queries never queue behind documents: each
// goes to a thread with no document work if there is one, and a thread answers queries between
// two model calls. Every thread stops once idle long enough: an idle server holds no model.
import { ModelThread, type ModelThreadOptions } from './offline-thread.js';

export interface ModelPoolOptions extends ModelThreadOptions {
  /** Model threads at most (the primary and its helpers). */
  threads: number;
  /** The primary thread stops after this long without any work. */
  idleMs: number;
  /** A helper stops after this long without document work. */
  helperIdleMs: number;
  /** Niceness of helper threads: they take the CPU the server and the primary leave. */
  helperNice: number;
}

/**
 * Texts per job sent to a thread. The texts of a call are sorted by length before they are cut
 * into jobs, so a job's texts are alike and pack well; small, so that two threads share a batch
 * and a helper's last job (niced, it may crawl on a busy machine) holds the batch up briefly.
 */
const JOB_TEXTS = 16;
/** Jobs waiting (of JOB_TEXTS each) while every thread is busy, before a helper starts: a search before add's few texts never start one. */
const BACKLOG_JOBS = 4;

interface Slot {
  thread: ModelThread;
  primary: boolean;
  ready: boolean;
  /** Document jobs sent to it and not answered. */
  documents: number;
  idleTimer?: NodeJS.Timeout | undefined;
}

interface DocumentJob {
  texts: string[];
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

export class ModelPool {
  private readonly slots: Slot[] = [];
  private readonly queue: DocumentJob[] = [];
  private loading: Promise<number> | undefined;
  /** Calls (queries and document batches) not yet answered: the primary stops only at 0. */
  private active = 0;

  constructor(private readonly options: ModelPoolOptions) {}

  /** Model threads running now. */
  get threads(): number {
    return this.slots.length;
  }

  /** Starts the primary thread and loads its model once (concurrent callers share it; a failed load can be retried). */
  load(): Promise<number> {
    if (this.loading) return this.loading;
    const slot = this.start(true);
    const loading = slot.thread.loaded.then(
      (ms) => {
        slot.ready = true;
        this.pump();
        this.scheduleIdle(); // a load with no work after it (a health check, the warm-up) still ends
        return ms;
      },
      async (cause: unknown) => {
        if (this.loading === loading) this.loading = undefined;
        await this.stop(slot);
        throw cause;
      },
    );
    this.loading = loading;
    return loading;
  }

  async query(text: string): Promise<number[]> {
    return this.using(async () => {
      await this.load();
      // A thread with no document work answers at once (the primary first: helpers run niced);
      // else the primary, between two of its calls.
      const free = this.slots.filter((s) => s.ready && s.documents === 0);
      const slot = free.find((s) => s.primary) ?? free[0] ?? this.slots.find((s) => s.primary);
      if (!slot) throw new Error("the offline embedder's thread stopped");
      const [v] = await slot.thread.embed([text], 'query');
      return v!;
    });
  }

  /** Vectors for `texts`, in order. Sorted by length first: neighbours then pad least in one model call. */
  documents(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    return this.using(async () => {
      await this.load();
      signal?.throwIfAborted();
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const jobs: { indices: number[]; done: Promise<number[][]> }[] = [];
      const queued: DocumentJob[] = [];
      for (let i = 0; i < order.length; i += JOB_TEXTS) {
        const indices = order.slice(i, i + JOB_TEXTS);
        const done = new Promise<number[][]>((resolve, reject) => queued.push({ texts: indices.map((k) => texts[k]!), resolve, reject }));
        done.catch(() => undefined); // a job after a failed one is rejected with nobody awaiting it
        jobs.push({ indices, done });
      }
      this.queue.push(...queued);
      const onAbort = () => this.drop(queued, signal!.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.pump();
        const out = new Array<number[]>(texts.length);
        for (const job of jobs) {
          const vectors = await job.done;
          job.indices.forEach((k, j) => (out[k] = vectors[j]!));
        }
        return out;
      } catch (error) {
        this.drop(queued, error as Error); // the rest of this batch is of no use now
        throw error;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    });
  }

  async close(): Promise<void> {
    this.loading = undefined;
    const slots = this.slots.splice(0);
    this.drop(this.queue.slice(), new Error('the offline embedder was closed'));
    await Promise.all(slots.map((s) => (clearTimeout(s.idleTimer), s.thread.terminate())));
  }

  private async using<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    for (const s of this.slots) if (s.primary) clearTimeout(s.idleTimer);
    try {
      return await work();
    } finally {
      this.active--;
      this.scheduleIdle();
    }
  }

  /** Hands waiting jobs to free threads; starts a helper when a backlog waits for busy ones. */
  private pump(): void {
    while (this.queue.length > 0) {
      // A helper takes a job only with another waiting behind it: the last one goes to the
      // primary, which is never niced, so a batch never waits long for a crawling helper.
      const slot = this.slots.find((s) => s.ready && s.documents === 0 && (s.primary || this.queue.length > 1));
      if (!slot) break;
      const job = this.queue.shift()!;
      slot.documents++;
      clearTimeout(slot.idleTimer);
      slot.thread.embed(job.texts, 'document').then(job.resolve, job.reject).finally(() => {
        slot.documents--;
        this.pump();
        this.scheduleIdle();
      });
    }
    if (this.queue.length >= BACKLOG_JOBS && this.slots.length < this.options.threads && this.slots.every((s) => s.ready)) this.startHelper();
  }

  private startHelper(): void {
    const slot = this.start(false);
    slot.thread.loaded.then(
      () => {
        slot.ready = true;
        this.pump();
        this.scheduleIdle();
      },
      () => void this.stop(slot), // the primary carries on alone
    );
  }

  private start(primary: boolean): Slot {
    const { tokenBudget, maxTexts, helperNice } = this.options;
    const slot: Slot = {
      primary,
      ready: false,
      documents: 0,
      thread: new ModelThread({ tokenBudget, maxTexts, nice: primary ? 0 : helperNice }, () => this.exited(slot)),
    };
    this.slots.push(slot);
    return slot;
  }

  /** A thread died or was stopped: forget it; with no thread left, nothing will take the queued jobs. */
  private exited(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.idleTimer);
    if (slot.primary) this.loading = undefined;
    if (!this.slots.some((s) => s.primary)) this.drop(this.queue.slice(), new Error("the offline embedder's thread exited"));
  }

  private async stop(slot: Slot): Promise<void> {
    this.exited(slot);
    await slot.thread.terminate();
  }

  private drop(jobs: DocumentJob[], error: Error): void {
    for (const job of jobs) {
      const i = this.queue.indexOf(job);
      if (i < 0) continue;
      this.queue.splice(i, 1);
      job.reject(error);
    }
  }

  /** Arms each idle thread's timer: a helper's once its document work is done, the primary's once nothing is asked. */
  private scheduleIdle(): void {
    for (const slot of this.slots) {
      const idle = slot.primary ? this.active === 0 && this.queue.length === 0 : slot.documents === 0 && this.queue.length === 0;
      if (!idle || !slot.ready) continue;
      clearTimeout(slot.idleTimer);
      slot.idleTimer = setTimeout(() => {
        const stillIdle = slot.primary ? this.active === 0 : slot.documents === 0 && this.queue.length === 0;
        if (!stillIdle) return;
        // The primary goes last: with it, every thread.
        if (slot.primary) void this.close();
        else void this.stop(slot);
      }, slot.primary ? this.options.idleMs : this.options.helperIdleMs);
      slot.idleTimer.unref();
    }
  }
}
