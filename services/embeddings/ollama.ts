// Embeddings from a local Ollama server (POST /api/embed, Ollama >= 0.3). Ollama is optional:
// when it is down every call fails fast with EmbedderUnavailableError and search runs on full
// text alone; when it serves the wrong model we refuse the vectors rather than store garbage.
import {
  EmbedderModelError,
  EmbedderUnavailableError,
  assertEmbeddable,
  inBatches,
  l2Normalise,
  type Embedder,
  type EmbedderHealth,
} from './embedder.js';
import { httpExchange, type HttpExchange } from './http-exchange.js';

export interface TaskPrefixes {
  /** Prepended to each document text before embedding. */
  document: string;
  /** Prepended to each query text before embedding. */
  query: string;
}

interface KnownModel extends TaskPrefixes {
  dimensions: number;
}

/**
 * Models trained with task prefixes embed much better when given them, and the two sides must
 * match (a document embedded without its prefix is not comparable with a prefixed query). Models
 * not listed here get no prefixes. Keyed by name without the ':tag'.
 */
const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = {
  'nomic-embed-text': { dimensions: 768, document: 'search_document: ', query: 'search_query: ' },
  'mxbai-embed-large': { dimensions: 1024, document: '', query: 'Represent this sentence for searching relevant passages: ' },
};

const NO_PREFIXES: TaskPrefixes = { document: '', query: '' };

/** Ollama treats 'name' and 'name:latest' as the same model. */
export function sameOllamaModel(a: string, b: string): boolean {
  const norm = (n: string) => (n.endsWith(':latest') ? n.slice(0, -':latest'.length) : n);
  return norm(a) === norm(b);
}

/** The task prefixes for an Ollama model name (tag ignored); empty prefixes for unknown models. */
export function taskPrefixesFor(model: string): TaskPrefixes {
  const known = KNOWN_MODELS[model.split(':')[0]!];
  return known ? { document: known.document, query: known.query } : NO_PREFIXES;
}

export interface OllamaEmbedderOptions {
  /** Base URL of the Ollama server, e.g. http://127.0.0.1:11434. user:password@ becomes Basic auth. */
  url: string;
  model?: string;
  /** Expected vector length; defaults to the model's known size, else 768. */
  dimensions?: number;
  /** Texts per /api/embed request. */
  batchSize?: number;
  /** Limit for each HTTP request (one batch), in ms. */
  timeoutMs?: number;
  /** Overrides the per-model prefix table. */
  prefixes?: TaskPrefixes;
  /** Sends one request and reads its answer: node:http (http-exchange.ts) unless a test substitutes one. */
  exchange?: HttpExchange;
}

export const FALLBACK = 'search falls back to keyword-only until it is reachable';

export class OllamaEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly prefixes: TaskPrefixes;
  /** The server URL without credentials, query or fragment: safe for messages and logs. */
  readonly displayUrl: string;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly exchange: HttpExchange;

  constructor(options: OllamaEmbedderOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      // Deliberately not echoing the string: it may hold a password.
      throw new TypeError('the Ollama URL is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the Ollama URL must be http(s), not ${url.protocol}`);
    // Credentials travel as a header, never in the URL, so they never reach a message.
    this.headers = { 'content-type': 'application/json' };
    if (url.username || url.password) {
      const userinfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(userinfo).toString('base64')}`;
    }
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    if (!url.pathname.endsWith('/')) url.pathname += '/'; // so a reverse-proxy path prefix survives
    this.base = url;
    this.displayUrl = url.href.replace(/\/$/, '');

    this.model = options.model ?? 'nomic-embed-text';
    this.dimensions = options.dimensions ?? KNOWN_MODELS[this.model.split(':')[0]!]?.dimensions ?? 768;
    this.batchSize = options.batchSize ?? 32;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.prefixes = options.prefixes ?? taskPrefixesFor(this.model);
    this.exchange = options.exchange ?? httpExchange;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1) throw new RangeError(`dimensions must be a positive integer, got ${this.dimensions}`);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    assertEmbeddable(texts);
    const out: number[][] = [];
    // One batch at a time: Ollama serialises requests to a model anyway, and this bounds memory.
    for (const batch of inBatches(texts, this.batchSize)) {
      out.push(...(await this.embedBatch(batch.map((t) => this.prefixes.document + t))));
    }
    return out;
  }

  async embedQuery(text: string): Promise<number[]> {
    assertEmbeddable([text]);
    const [vector] = await this.embedBatch([this.prefixes.query + text]);
    return vector!;
  }

  async health(): Promise<EmbedderHealth> {
    try {
      // A probe must answer quickly even when embedding batches are allowed to take long.
      const body = await this.request('GET', 'api/tags', undefined, Math.min(this.timeoutMs, 3_000));
      const models = isRecord(body) && Array.isArray(body.models) ? body.models : [];
      const pulled = models.some(
        (m) => isRecord(m) && [m.name, m.model].some((n) => typeof n === 'string' && sameOllamaModel(n, this.model)),
      );
      if (!pulled) return { ok: false, reason: `model "${this.model}" is not pulled on Ollama at ${this.displayUrl}; run \`ollama pull ${this.model}\`` };
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    const body = await this.request('POST', 'api/embed', { model: this.model, input }, this.timeoutMs);
    if (!isRecord(body) || !Array.isArray(body.embeddings)) {
      throw new EmbedderUnavailableError(`Ollama at ${this.displayUrl} answered /api/embed without "embeddings" (is it Ollama >= 0.3?); ${FALLBACK}`);
    }
    if (typeof body.model === 'string' && !sameOllamaModel(body.model, this.model)) {
      throw new EmbedderModelError(`model mismatch: asked Ollama at ${this.displayUrl} for "${this.model}" but it answered as "${body.model}"`);
    }
    if (body.embeddings.length !== input.length) {
      throw new EmbedderModelError(`model mismatch: Ollama returned ${body.embeddings.length} vectors for ${input.length} texts`);
    }
    return body.embeddings.map((v: unknown) => {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) {
        throw new EmbedderModelError(`Ollama at ${this.displayUrl} returned a malformed vector for "${this.model}"`);
      }
      if (v.length !== this.dimensions) {
        throw new EmbedderModelError(
          `model mismatch: "${this.model}" returned ${v.length}-dimensional vectors but ${this.dimensions} are expected; ` +
            'vectors of another size cannot share the stored index',
        );
      }
      return l2Normalise(v, this.model);
    });
  }

  /** One HTTP exchange, with every failure mapped onto the two embedder errors. */
  private async request(method: 'GET' | 'POST', path: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    let status: number;
    let text: string;
    try {
      ({ status, text } = await this.exchange({
        url: new URL(path, this.base),
        method,
        headers: this.headers,
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
        timeoutMs, // the connection, the request and the whole answer
      }));
    } catch (cause) {
      const why = isTimeout(cause) ? `did not answer within ${timeoutMs} ms` : `is unreachable (${networkReason(cause)})`;
      throw new EmbedderUnavailableError(`Ollama at ${this.displayUrl} ${why}; ${FALLBACK}`, { cause });
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) {
      if (body === undefined) throw new EmbedderUnavailableError(`Ollama at ${this.displayUrl} answered ${path} with something that is not JSON; ${FALLBACK}`);
      return body;
    }
    const detail = isRecord(body) && typeof body.error === 'string' ? body.error : text.slice(0, 200).trim() || 'no details';
    if (status >= 500 || status === 401 || status === 403 || status === 407) {
      throw new EmbedderUnavailableError(`Ollama at ${this.displayUrl} answered ${status} (${detail}); ${FALLBACK}`);
    }
    if (status === 404 && /model .*not found/i.test(detail)) {
      throw new EmbedderModelError(`Ollama at ${this.displayUrl} does not have model "${this.model}"; run \`ollama pull ${this.model}\``);
    }
    if (status === 404) {
      throw new EmbedderModelError(`Ollama at ${this.displayUrl} has no /${path} (404: ${detail}); Ollama 0.3 or later is needed`);
    }
    throw new EmbedderModelError(`Ollama at ${this.displayUrl} rejected ${path} for "${this.model}" (${status}: ${detail})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

/** The socket error's code (ECONNREFUSED, ENOTFOUND) says more than its message; a wrapped one's cause is looked at too. */
function networkReason(err: unknown): string {
  const own = err as { code?: unknown } | undefined;
  if (own && typeof own.code === 'string') return own.code;
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}
