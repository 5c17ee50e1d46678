// Picks the embedder at start-up and says why, so `brain up` can log one clear line.
//
// Vectors from different models are not comparable, so whoever stores them must keep the model
// id beside each vector and re-embed when `embedder.model` changes: with 'auto', a brain that
// starts once with Ollama down gets the offline model for that run.
import { z } from 'zod';
import type { Embedder } from './embedder.js';
import type { HttpExchange } from './http-exchange.js';
import { OfflineEmbedder } from './offline.js';
import { FALLBACK, OllamaEmbedder } from './ollama.js';

export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

export const embedderConfigSchema = z.object({
  /** 'auto' = Ollama when its health check passes, else the offline embedder. */
  provider: z.enum(['ollama', 'offline', 'auto']).default('auto'),
  ollamaUrl: z.url({ protocol: /^https?$/ }).default(DEFAULT_OLLAMA_URL),
  ollamaModel: z.string().min(1).default('nomic-embed-text'),
  /** Only needed for Ollama models not in the built-in table. */
  ollamaDimensions: z.number().int().positive().optional(),
  ollamaTimeoutMs: z.number().int().positive().optional(),
});

export type EmbedderConfig = z.input<typeof embedderConfigSchema>;

export interface EmbedderSelection {
  embedder: Embedder;
  /** One human-readable line: which embedder and why. */
  reason: string;
}

export interface SelectDependencies {
  /** How the Ollama client sends a request (http-exchange.ts); tests substitute one. */
  exchange?: HttpExchange;
  /** Builds the offline embedder; tests substitute a cheap one. */
  offline?: () => Embedder;
}

export async function createEmbedder(config: EmbedderConfig, deps: SelectDependencies = {}): Promise<EmbedderSelection> {
  const parsed = embedderConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The issue message, never the input: an Ollama URL may carry a password.
    throw new TypeError(`embedder config: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  const c = parsed.data;
  const offline = () => deps.offline?.() ?? new OfflineEmbedder();

  if (c.provider === 'offline') {
    const embedder = offline();
    return { embedder, reason: `offline embedder ${describe(embedder)} (configured)` };
  }

  const ollama = new OllamaEmbedder({
    url: c.ollamaUrl,
    model: c.ollamaModel,
    ...(c.ollamaDimensions === undefined ? {} : { dimensions: c.ollamaDimensions }),
    ...(c.ollamaTimeoutMs === undefined ? {} : { timeoutMs: c.ollamaTimeoutMs }),
    ...(deps.exchange ? { exchange: deps.exchange } : {}),
  });
  const health = await ollama.health();
  const where = `Ollama ${describe(ollama)} at ${ollama.displayUrl}`;

  if (c.provider === 'ollama') {
    // Configured explicitly: keep it even when down; calls fail with EmbedderUnavailableError
    // and search degrades to keyword-only until it comes back.
    return { embedder: ollama, reason: health.ok ? `${where} (configured)` : `${where} (configured, but not usable now: ${health.reason})` };
  }
  if (health.ok) return { embedder: ollama, reason: `${where} (auto: it answered the health check)` };
  const fallback = offline();
  // Ollama's reason ends by saying search falls back to keyword-only; here it falls back to the offline model.
  const why = (health.reason ?? 'Ollama did not answer').replace(`; ${FALLBACK}`, '');
  return { embedder: fallback, reason: `offline embedder ${describe(fallback)} (auto: ${why})` };
}

function describe(e: Embedder): string {
  return `${e.model}, ${e.dimensions}-d`;
}
