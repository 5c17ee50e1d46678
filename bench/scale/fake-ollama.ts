// A fake Ollama for the scale bench, in the bench's process: /api/tags and /api/embed as the
// brain's Ollama embedder calls them, with the test suite's bag-of-words hashing vectors
// (test/support/fake-ollama.ts: texts sharing words come out similar, so semantic search
// means something). `refuseDocuments` makes it answer 503 to document batches (texts with
// the "search_document: " prefix the embedder gives nomic-embed-text) while still embedding
// queries: past the bench's time limit the embedding worker then backs off, and searches run
// alone over the cards embedded so far instead of racing the worker.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeVector } from '../../test/support/fake-ollama.js';

export interface BenchOllama {
  url: string;
  /** Texts embedded, documents and queries. */
  texts: { documents: number; queries: number };
  refuseDocuments: boolean;
  close(): Promise<void>;
}

const MODEL = 'nomic-embed-text:latest';
const DIMS = 768;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export interface BenchOllamaOptions {
  refuseDocuments?: boolean;
  /** Each /api/embed answered this long after it arrived, as a real Ollama computes (default 0). */
  delayMs?: number;
}

export async function startBenchOllama(options: BenchOllamaOptions = {}): Promise<BenchOllama> {
  const state: BenchOllama = { url: '', texts: { documents: 0, queries: 0 }, refuseDocuments: options.refuseDocuments ?? false, close: async () => undefined };
  const delayMs = options.delayMs ?? 0;
  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/api/tags') {
      return send(res, 200, { models: [{ name: MODEL, model: MODEL, modified_at: '2024-01-01T00:00:00Z', size: 274_302_450, digest: 'fake', details: { format: 'gguf', family: 'nomic-bert', embedding_length: DIMS } }] });
    }
    if (req.method === 'POST' && path === '/api/embed') {
      const body = JSON.parse(raw) as { model?: string; input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      const documents = input.some((t) => t.startsWith('search_document: '));
      if (documents && state.refuseDocuments) return send(res, 503, { error: 'the bench stopped embedding documents (its time limit)' });
      state.texts[documents ? 'documents' : 'queries'] += input.length;
      const answer = { model: body.model ?? MODEL, embeddings: input.map((t) => fakeVector(t, DIMS)), total_duration: 1_000_000, load_duration: 0, prompt_eval_count: input.length };
      if (delayMs > 0) return void setTimeout(() => send(res, 200, answer), delayMs);
      return send(res, 200, answer);
    }
    send(res, 404, { error: 'not found' });
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(parts).toString('utf8'));
      } catch (error) {
        send(res, 500, { error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}
