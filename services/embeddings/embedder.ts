// The one interface every embedding backend implements, and the two errors callers branch on:
// EmbedderUnavailableError means "search falls back to keyword-only for now, retry later";
// EmbedderModelError means "this configuration cannot work until someone fixes it".
//
// Every vector an Embedder returns is L2-normalised (length 1). pgvector columns are therefore
// compared with cosine distance (`<=>`, `vector_cosine_ops` indexes); on unit vectors that ranks
// exactly like inner product, and a backend that stops normalising cannot skew the ranking.

export interface EmbedderHealth {
  ok: boolean;
  /** Why the embedder cannot be used right now; present when `ok` is false. */
  reason?: string;
}

export interface Embedder {
  /** Model id stored next to each vector, e.g. 'nomic-embed-text' or 'use-lite-512'. */
  readonly model: string;
  /** Length of every returned vector, e.g. 768 or 512. */
  readonly dimensions: number;
  /**
   * Embeds texts to be searched (card chunks), batched internally; one vector per text, in order.
   * After `signal` aborts, work not yet started is dropped (the promise rejects).
   */
  embedDocuments(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
  /** Embeds a search query; some models embed queries differently from documents. */
  embedQuery(text: string): Promise<number[]>;
  /** Cheap liveness probe: resolves to { ok: true } or { ok: false, reason } and never throws. */
  health(): Promise<EmbedderHealth>;
  /**
   * A query is expected soon (an MCP session opened): an embedder that loads its model on
   * demand starts loading it now, in the background. Returns at once and never throws; optional.
   */
  prepare?(): void;
  /** Releases what the embedder holds (a thread, sockets); optional. */
  close?(): Promise<void>;
}

/** The backend is down, unreachable or timed out. Nothing is wrong with the configuration. */
export class EmbedderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbedderUnavailableError';
  }
}

/** The model is missing, answers with the wrong dimension or is not the model we asked for. */
export class EmbedderModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbedderModelError';
  }
}

/**
 * Returns `v` scaled to length 1. A zero or non-finite vector cannot be compared by cosine
 * distance at all, so it is a model fault rather than something to store.
 */
export function l2Normalise(v: readonly number[], model: string): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) {
    throw new EmbedderModelError(`model "${model}" returned a ${norm === 0 ? 'zero' : 'non-finite'} vector`);
  }
  return v.map((x) => x / norm);
}

/**
 * Rejects empty or whitespace-only texts up front: USE-lite crashes on them and other models
 * embed them as noise, so either way it is a caller bug (the chunker never produces them).
 */
export function assertEmbeddable(texts: readonly string[]): void {
  texts.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '') {
      throw new RangeError(`cannot embed an empty text (input ${i})`);
    }
  });
}

/** Splits `items` into consecutive groups of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batchSize must be a positive integer, got ${size}`);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
