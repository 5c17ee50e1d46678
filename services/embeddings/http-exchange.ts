// One HTTP exchange with Ollama over node:http (node:https for an https URL), on a keep-alive
// agent, instead of fetch(). Measured against fetch (docs/performance.md, "The query's embedding
// without fetch"):
//   - Its own cost, all of it on this thread: a query embedding from the bench's fake Ollama took
//     1.7 / 5.0 ms (p50 / p95) through fetch and 0.7 / 1.8 ms through http.request.
//   - How soon the request leaves: on a kept connection http.request writes it before the next
//     turn of the event loop; fetch (undici) had not written it after one. Search asks for the
//     query's embedding, lets the loop turn once, and then runs statements that hold this thread:
//     a request not yet written waits for them (test/embeddings/ollama-overlap.test.ts).
// The body is read whole (an embedding answer is a few tens of kB, refused past MAX_ANSWER_BYTES)
// and the deadline covers the connection, the request and the whole body, as
// AbortSignal.timeout did for fetch.
import http from 'node:http';
import { createRequire } from 'node:module';

export interface ExchangeRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Readonly<Record<string, string>>;
  body?: string;
  timeoutMs: number;
}

export interface ExchangeResponse {
  status: number;
  text: string;
}

/** What the Ollama client calls for each request; tests substitute one that answers as they need. */
export type HttpExchange = (request: ExchangeRequest) => Promise<ExchangeResponse>;

/** An answer larger than this is refused: Ollama's largest (a batch of 32 vectors of 1,024) is about 1 MB. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Thrown when the deadline passes; `name` as AbortSignal.timeout's error, for callers that tell timeouts apart. */
export class ExchangeTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

// One client per protocol for the process: its module and a keep-alive agent, so sockets to
// Ollama are reused between requests (a new connection per query would cost a handshake each
// time). The agent unreferences a socket while it waits in its pool, so an idle connection never
// keeps a process alive.
interface Client {
  request: typeof http.request;
  agent: http.Agent;
}
const clients: Partial<Record<'http:' | 'https:', Client>> = {};

function clientFor(protocol: 'http:' | 'https:'): Client {
  return (clients[protocol] ??= (() => {
    // node:https loads node:tls, which nothing else here needs: only for an https URL.
    const lib = protocol === 'https:' ? (createRequire(import.meta.url)('node:https') as typeof http) : http;
    return { request: lib.request, agent: new lib.Agent({ keepAlive: true, maxSockets: 4 }) };
  })());
}

/**
 * A request that fails this way on a kept connection, before any answer, found the connection
 * closed: the server had closed it while it sat in the pool (its idle timeout: Node's is 5 s, a reverse
 * proxy's a minute or so) and this thread had not read the close yet, as happens whenever a
 * statement of the embedded database holds the thread across it. Node's documented answer
 * (`request.reusedSocket`) is to send it again on another connection.
 */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** Sent again at most this many times: each of the pool's four connections may be stale. */
const STALE_RETRIES = 4;

export const httpExchange: HttpExchange = (request) =>
  new Promise<ExchangeResponse>((resolve, reject) => {
    const client = clientFor(request.url.protocol === 'https:' ? 'https:' : 'http:');
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    let settled = false;
    let req: http.ClientRequest;
    const finish = (error: Error | undefined, response?: ExchangeResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response!);
    };
    // One deadline for every attempt: a retry never extends the caller's wait.
    const deadline = setTimeout(() => finish(new ExchangeTimeoutError(`no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    const send = (retriesLeft: number) => {
      let answered = false;
      req = client.request(request.url, { method: request.method, headers, agent: client.agent }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) finish(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.once('end', () => finish(undefined, { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.once('error', (error) => finish(error));
        res.once('close', () => finish(new Error('the connection closed before the whole answer came'))); // after 'end' when complete: a no-op
      });
      const sent = req;
      sent.once('error', (error: NodeJS.ErrnoException) => {
        // Only a kept connection that failed before any answer. Sending again is safe even if the
        // server did see it: an embedding or a model list changes nothing there.
        if (!settled && !answered && sent.reusedSocket && retriesLeft > 0 && STALE_CONNECTION.has(error.code ?? '')) send(retriesLeft - 1);
        else finish(error);
      });
      sent.end(body);
    };
    send(STALE_RETRIES);
  });
