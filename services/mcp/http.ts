// The HTTP face of one subject's MCP server: Streamable HTTP on /mcp, health on /healthz
// and /readyz. Loopback by default; Host and Origin checked on every request (DNS
// rebinding); optional bearer token; body limit, per-session rate limit, timeouts;
// sessions drained and closed on shutdown.
import { randomUUID } from 'node:crypto';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { bearerAuth } from './auth.js';
import { RateLimiter } from './rate-limit.js';

export interface HttpOptions {
  subject: string;
  logger: Logger;
  /** Extra Host names to accept besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: readonly string[];
  bearerToken?: string | undefined;
  createServer: () => McpServer;
  readiness: () => Promise<{ ready: boolean }>;
  bodyLimitBytes?: number;
  requestsPerSecond?: number;
  burst?: number;
  maxSessions?: number;
  sessionIdleMs?: number;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

function rpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export async function buildHttpApp(opts: HttpOptions) {
  const app = Fastify({
    loggerInstance: opts.logger,
    bodyLimit: opts.bodyLimitBytes ?? 4 * 1024 * 1024,
    requestTimeout: 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 10_000,
    return503OnClosing: true,
    genReqId: () => randomUUID(),
  });
  const sessions = new Map<string, Session>();
  const limiter = new RateLimiter(opts.requestsPerSecond ?? 20, opts.burst ?? 60);
  const hosts = [...LOCAL_HOSTS, ...(opts.allowedHosts ?? [])];

  app.addHook('onRequest', hostHeaderValidation(hosts));
  app.addHook('onRequest', originValidation(hosts));

  // Malformed JSON and oversized bodies get JSON-RPC errors, and the server stays healthy.
  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return rpcError(reply, 413, -32600, 'request body too large');
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return rpcError(reply, 415, -32600, 'Content-Type must be application/json');
    if (error.statusCode === 400) return rpcError(reply, 400, -32700, 'parse error: the body is not valid JSON');
    request.log.error({ err: error }, 'request failed');
    return rpcError(reply, 500, -32603, 'internal error');
  });

  app.get('/healthz', async () => ({ ok: true, subject: opts.subject }));
  app.get('/readyz', async (_req, reply) => {
    const state = await opts.readiness().catch((error: unknown) => ({ ready: false, error: (error as Error).message }));
    return reply.code(state.ready ? 200 : 503).send({ subject: opts.subject, ...state });
  });

  await app.register(
    async (mcp) => {
      if (opts.bearerToken) mcp.addHook('onRequest', bearerAuth(opts.bearerToken, `claude-brain-${opts.subject}`));
      mcp.addHook('onRequest', async (request, reply) => {
        const sessionId = request.headers['mcp-session-id'] as string | undefined;
        // Every log line of this request carries its session (and fastify's request id).
        if (sessionId) request.log = request.log.child({ sessionId });
        const key = sessionId ?? request.ip;
        if (!limiter.take(key)) return rpcError(reply, 429, -32000, 'too many requests; slow down and retry in a second');
      });

      mcp.post('/mcp', async (request, reply) => {
        const id = request.headers['mcp-session-id'] as string | undefined;
        let session = id ? sessions.get(id) : undefined;
        if (id && !session) return rpcError(reply, 404, -32001, 'unknown or expired session; initialize a new one');
        if (!session) {
          if (!isInitializeRequest(request.body)) return rpcError(reply, 400, -32600, 'no session: the first request must be initialize');
          if (sessions.size >= (opts.maxSessions ?? 100)) return rpcError(reply, 503, -32000, 'too many open sessions; close one and retry');
          const server = opts.createServer();
          const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => {
              sessions.set(sid, { transport, server, lastSeen: Date.now() });
              request.log.info({ sessionId: sid }, 'session opened');
            },
            onsessionclosed: (sid) => {
              sessions.delete(sid);
              limiter.forget(sid);
              request.log.info({ sessionId: sid }, 'session closed');
            },
          });
          await server.connect(transport);
          session = { transport, server, lastSeen: Date.now() };
        }
        session.lastSeen = Date.now();
        reply.hijack();
        await session.transport.handleRequest(request.raw, reply.raw, request.body);
      });

      // GET opens the server-to-client stream, DELETE ends the session: both need one.
      const forward = async (request: FastifyRequest, reply: FastifyReply) => {
        const id = request.headers['mcp-session-id'] as string | undefined;
        const session = id ? sessions.get(id) : undefined;
        if (!session) return rpcError(reply, id ? 404 : 400, -32001, id ? 'unknown or expired session' : 'mcp-session-id header required');
        session.lastSeen = Date.now();
        reply.hijack();
        await session.transport.handleRequest(request.raw, reply.raw);
      };
      mcp.get('/mcp', forward);
      mcp.delete('/mcp', forward);
    },
  );

  const sweep = setInterval(() => {
    const idle = opts.sessionIdleMs ?? 30 * 60_000;
    for (const [sid, s] of sessions) {
      if (Date.now() - s.lastSeen > idle) {
        sessions.delete(sid);
        void s.transport.close();
        void s.server.close();
      }
    }
  }, 60_000);
  sweep.unref();

  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.values()].flatMap((s) => [s.transport.close(), s.server.close()]));
    sessions.clear();
  });
  return app;
}

export type BrainHttpApp = Awaited<ReturnType<typeof buildHttpApp>>;
