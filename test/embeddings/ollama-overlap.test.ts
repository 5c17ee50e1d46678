// Search asks for the query's embedding first, then runs its keyword statements, which hold this
// thread (the embedded database runs on it). The request must be on its way to Ollama before
// they start, or the embedding is waited for on top of them (services/embeddings/http-exchange.ts).
// Ollama here is a small server on a thread of its own, so it answers while this one is held;
// it tells this thread that a request came through shared memory, which needs no event loop.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { httpExchange, MAX_ANSWER_BYTES } from '../../services/embeddings/http-exchange.js';
import { holdUntil, serverOnAThread, type ThreadServer } from '../support/thread-server.js';

const OLLAMA_ON_A_THREAD = `
const http = require('node:http');
const { parentPort, workerData: seen } = require('node:worker_threads');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    Atomics.add(seen, 0, 1);
    Atomics.notify(seen, 0);
    const body = req.url === '/api/tags'
      ? { models: [{ name: 'nomic-embed-text:latest', model: 'nomic-embed-text:latest' }] }
      : { model: 'nomic-embed-text', embeddings: JSON.parse(Buffer.concat(chunks)).input.map((_, i) => Array.from({ length: 768 }, (_, j) => (j === i ? 1 : 0.01))) };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => parentPort.close()));
`;

describe('the query embedding goes out before the thread is busy again', () => {
  const seen = new Int32Array(new SharedArrayBuffer(4));
  let server: ThreadServer;
  let url: string;
  beforeAll(async () => {
    server = await serverOnAThread(OLLAMA_ON_A_THREAD, seen);
    url = server.url;
  });
  afterAll(() => server.close());

  it('a query asked for, then one turn of the event loop (as search does), reaches Ollama while this thread is held', async () => {
    const ollama = new OllamaEmbedder({ url });
    expect(await ollama.embedQuery('the first opens the connection')).toHaveLength(768);
    const before = Atomics.load(seen, 0);
    expect(before).toBe(1);

    const vector = ollama.embedQuery('asked before the statements');
    await new Promise<void>((resolve) => setImmediate(resolve)); // search.ts startQueryEmbedding
    // Held as the keyword statements hold it: with fetch() the request was still in this process.
    expect(holdUntil(seen, 0, before + 1, 5_000)).toBe('ok');
    expect(await vector).toHaveLength(768);
  });

  it('every request of a burst is answered, on connections the agent keeps', async () => {
    const ollama = new OllamaEmbedder({ url }); // six at once, on an agent of at most four sockets
    const vectors = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((t) => ollama.embedQuery(t)));
    expect(vectors).toHaveLength(6);
    for (const v of vectors) expect(v).toHaveLength(768);
  });

  it('an answer over the size limit is refused, not held in memory', async () => {
    const big = await oversizedServer();
    try {
      const error = await httpExchange({ url: new URL(big.url), method: 'GET', headers: {}, timeoutMs: 5_000 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/larger than/);
    } finally {
      await big.stop();
    }
  }, 20_000);
});

/** A server answering every request with more than the exchange's limit, streamed. */
async function oversizedServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const chunk = Buffer.alloc(512 * 1024, 'x');
  const server = createServer((_req, res) => {
    res.writeHead(200);
    let sent = 0;
    const more = () => {
      while (sent <= MAX_ANSWER_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => undefined);
    more();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
