// A kept connection that the server closed while this thread was held (a statement of the
// embedded database runs on it) is still in the agent's pool when the next request goes out:
// the request fails on it (ECONNRESET, "socket hang up") without reaching Ollama, and search
// fell back to keyword-only, the worker backed off. httpExchange sends it again on another
// connection (services/embeddings/http-exchange.ts). The server runs on a thread of its own and
// closes idle connections after 50 ms, as proxies do after a minute; it tells this thread
// through shared memory when a connection has closed.
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpExchange } from '../../services/embeddings/http-exchange.js';
import { holdUntil, serverOnAThread, type ThreadServer } from '../support/thread-server.js';

// seen[0]: requests answered; seen[1]: connections the server closed; seen[2]: connections opened.
const SERVER_ON_A_THREAD = `
const http = require('node:http');
const { parentPort, workerData: seen } = require('node:worker_threads');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    Atomics.add(seen, 0, 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: Atomics.load(seen, 0) }));
    // Idle for 50 ms: closed, without the Keep-Alive timeout hint a Node server sends (Ollama and
    // proxies send none): with the hint, Node's agent would drop the connection in time itself.
    res.on('finish', () => setTimeout(() => req.socket.destroy(), 50));
  });
});
server.keepAliveTimeout = 0;
server.on('connection', (socket) => {
  Atomics.add(seen, 2, 1);
  socket.on('close', () => {
    Atomics.add(seen, 1, 1);
    Atomics.notify(seen, 1);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => parentPort.close()));
`;

describe('a kept connection the server closed while this thread was held', () => {
  const seen = new Int32Array(new SharedArrayBuffer(12));
  let server: ThreadServer;
  let url: URL;
  beforeAll(async () => {
    server = await serverOnAThread(SERVER_ON_A_THREAD, seen);
    url = new URL(`${server.url}/api/embed`);
  });
  afterAll(() => server.close());

  it('is not used: the request goes out again on a new connection and is answered', async () => {
    const ask = () => httpExchange({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":["x"]}', timeoutMs: 5_000 });
    const first = await ask();
    expect(first.status).toBe(200);
    expect(Atomics.load(seen, 2)).toBe(1);
    // Two turns of the event loop put the connection back in the agent's pool.
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    // Hold the thread until the server has closed it, plus a little for its close to reach this
    // socket; then ask at once, with no turn of the event loop in between, so the pool still
    // holds the connection as open.
    expect(holdUntil(seen, 1, 1, 5_000)).toBe('ok');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    const second = await ask();
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text)).toEqual({ answer: 2 });
    // Answered on a second connection: the first was tried and found closed.
    expect(Atomics.load(seen, 2)).toBe(2);
  });

  it('a new connection that fails is not tried again: the error goes to the caller', async () => {
    const sockets: Socket[] = [];
    const resetting = createServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => socket.resetAndDestroy());
    });
    resetting.listen(0, '127.0.0.1');
    await once(resetting, 'listening');
    try {
      const { port } = resetting.address() as { port: number };
      const error = await httpExchange({ url: new URL(`http://127.0.0.1:${port}/api/tags`), method: 'GET', headers: {}, timeoutMs: 5_000 }).then(
        () => undefined,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(error?.code).toBe('ECONNRESET');
      expect(sockets).toHaveLength(1);
    } finally {
      resetting.close();
    }
  });
});
