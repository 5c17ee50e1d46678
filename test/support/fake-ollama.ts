// A real HTTP server on 127.0.0.1 that speaks the slice of Ollama's API the embedder uses, so
// tests exercise the actual fetch path: sockets, status codes, refused connections, timeouts.
// Vectors are a bag-of-words hashing projection: texts sharing words come out similar, and the
// same text always gives the same vector.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllamaOptions {
  /** Pulled models and their dimensions; default { 'nomic-embed-text:latest': 768 }. */
  models?: Record<string, number>;
}

export interface FakeOllamaMode {
  /** Answer /api/embed as this model name instead of the requested one. */
  wrongModel: string | null;
  /** Answer /api/embed with vectors of this length instead of the model's. */
  wrongDimension: number | null;
  /** Answer every request with this status and an Ollama-style error body. */
  failStatus: number | null;
  /** Answer /api/embed only with this status: a model that is pulled (listed) but cannot load. */
  embedFailStatus: number | null;
  /** Wait this long before answering (for timeouts). */
  delayMs: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or undefined when there was none. */
  body: any;
}

export interface FakeOllama {
  /** http://127.0.0.1:PORT, stable across down()/up(). */
  url: string;
  requests: RecordedRequest[];
  setMode(mode: Partial<FakeOllamaMode>): void;
  /** Stops listening and drops open connections: clients get ECONNREFUSED. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

const NORMAL: FakeOllamaMode = { wrongModel: null, wrongDimension: null, failStatus: null, embedFailStatus: null, delayMs: 0 };

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = opts.models ?? { 'nomic-embed-text:latest': 768 };
  const requests: RecordedRequest[] = [];
  let mode: FakeOllamaMode = { ...NORMAL };
  const pending = new Set<NodeJS.Timeout>();

  const findModel = (name: unknown): number | undefined => {
    if (typeof name !== 'string') return undefined;
    return models[name] ?? models[`${name}:latest`] ?? models[name.replace(/:latest$/, '')];
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    let body: any;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });

    if (mode.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => (pending.delete(t), resolve()), mode.delayMs);
        pending.add(t);
      });
      if (res.destroyed) return;
    }
    if (mode.failStatus !== null) return send(res, mode.failStatus, { error: 'fake failure' });

    if (req.method === 'GET' && path === '/api/tags') {
      return send(res, 200, {
        models: Object.entries(models).map(([name, dims]) => ({
          name,
          model: name,
          modified_at: '2024-01-01T00:00:00Z',
          size: 274_302_450,
          digest: createHash('sha256').update(name).digest('hex'),
          details: { format: 'gguf', family: 'nomic-bert', embedding_length: dims },
        })),
      });
    }
    if (req.method === 'POST' && path === '/api/embed') {
      if (mode.embedFailStatus !== null) return send(res, mode.embedFailStatus, { error: 'model requires more system memory than is available' });
      const dims = findModel(body?.model);
      if (dims === undefined) return send(res, 404, { error: `model "${String(body?.model)}" not found, try pulling it first` });
      const input: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
      const length = mode.wrongDimension ?? dims;
      return send(res, 200, {
        model: mode.wrongModel ?? body.model,
        embeddings: input.map((t) => fakeVector(String(t), length)),
        total_duration: 1_000_000,
        load_duration: 0,
        prompt_eval_count: input.length,
      });
    }
    send(res, 404, '404 page not found');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { error: String(err) }));
  });
  server.keepAliveTimeout = 1_000;

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      for (const t of pending) clearTimeout(t);
      pending.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  const port = await listen(0);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode: (m) => {
      mode = { ...mode, ...m };
    },
    down: stop,
    up: async () => {
      if (!server.listening) await listen(port);
    },
    close: stop,
  };
}

/**
 * Each lowercase word adds ±1 at a few hashed positions; the sum is normalised. Shared words
 * therefore mean a higher dot product, which is enough for ranking tests.
 */
export function fakeVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const h = createHash('sha256').update(word).digest();
    for (let k = 0; k < 4; k++) {
      const pos = h.readUInt32BE(k * 4) % dimensions;
      v[pos]! += h[16 + k]! & 1 ? 1 : -1;
    }
  }
  const norm = Math.hypot(...v);
  if (norm === 0) {
    v[0] = 1; // no words: still a valid unit vector
    return v;
  }
  return v.map((x) => x / norm);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8' });
  res.end(text);
}
