// The HTTP face of one subject's MCP server: Streamable HTTP on /mcp, health on /healthz
// and /readyz. Loopback by default; Host and Origin checked on every request (DNS
// rebinding); optional bearer token, or OAuth for a subject that opts in (services/auth/:
// its authorization endpoints here, a token required on /mcp, each session bound to the
// grant that opened it); body limit, per-session rate limit, timeouts.
//
// Sessions: one McpServer + transport per session, ended by the client's DELETE, or after
// `sessionIdleMs` with no request and no open GET stream (the id then answers 404, so the
// client initializes again); a session that never made a call beyond initialize goes after
// a minute. Sessions are capped in all and per client address; at a cap, room is made by
// closing the oldest session that never made a call, else the longest idle one, so that a
// flood of initialize calls cannot lock out the clients that already work (all loopback
// clients share 127.0.0.1: a cap alone would be shared with the flood). Shutdown (app.close()): new requests get 503 at once, requests
// in flight get up to `drainMs` to finish, then every session is closed, its streams ended,
// and the sockets still open are destroyed, so that an open GET stream or a call that never
// ends cannot hold the process. `app.mcpSessions.closeNow()` cuts the drain short.
import { randomUUID } from 'node:crypto';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { OAuthAuthority } from '../auth/authority.js';
import { authOf, oauthGuard, type RequestAuth } from '../auth/resource-guard.js';
import { oauthRoutes } from '../auth/routes.js';
import { bearerAuth } from './auth.js';
import { RateLimiter } from './rate-limit.js';
import { QuietRequestLog } from '../runtime/request-log.js';

export interface HttpOptions {
  subject: string;
  logger: Logger;
  /** Extra Host names to accept besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: readonly string[];
  bearerToken?: string | undefined;
  /**
   * OAuth for this subject (services/auth/): its discovery, registration, authorize and token
   * endpoints, and a token required on /mcp (the bearer token above still works, as the
   * owner's own full-access credential). Unset: loopback, optional bearer token, as before.
   */
  oauth?: OAuthAuthority | undefined;
  /** A new MCP server for a new session, given who the session acts for when it is authenticated. */
  createServer: (auth?: RequestAuth) => McpServer;
  readiness: () => Promise<{ ready: boolean }>;
  bodyLimitBytes?: number;
  requestsPerSecond?: number;
  burst?: number;
  /** Open sessions in all (default 100). */
  maxSessions?: number;
  /** Open sessions per client address (default 50). */
  maxSessionsPerAddress?: number;
  /** A session that never made a call beyond initialize is closed after this long without a request (default 1 minute, at most sessionIdleMs). */
  unusedSessionIdleMs?: number;
  /** At a cap, a session that made calls may be closed to make room once it has been idle this long (default 1 minute). */
  evictIdleMs?: number;
  /** A session with no request and no open GET stream for this long is closed (default 10 minutes). */
  sessionIdleMs?: number;
  /** On shutdown, how long requests in flight may run before their sessions are closed (default 5 s). */
  drainMs?: number;
}

export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_MAX_SESSIONS_PER_ADDRESS = 50;
export const DEFAULT_UNUSED_SESSION_IDLE_MS = 60_000;
export const DEFAULT_EVICT_IDLE_MS = 60_000;
export const DEFAULT_DRAIN_MS = 5_000;

/** How often idle sessions are looked for: a quarter of the idle time, between 25 ms and a minute. */
export function sweepIntervalMs(idleMs: number): number {
  return Math.min(60_000, Math.max(25, Math.floor(idleMs / 4)));
}

/** The sessions of one HTTP app, for shutdown and for tests (no HTTP endpoint shows them). */
export interface McpSessions {
  /** Open sessions. */
  readonly count: number;
  /** Open GET (server-to-client) streams, over all sessions. */
  readonly openStreams: number;
  /** MCP requests (POST) still being answered. */
  readonly inFlight: number;
  /** Skip the shutdown drain (or end one under way): sessions and sockets are closed at once. */
  closeNow(): void;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
  /** Open GET streams. */
  streams: number;
  /** Requests being answered. */
  inFlight: number;
  /** The client address that initialized it (the per-address cap). */
  address: string;
  /** It made a call beyond initialize (any message but notifications/initialized). */
  used: boolean;
  /** The authorization it was opened with (OAuth grant, or 'static'); every later request must carry the same. */
  grantId: string | undefined;
  log: FastifyBaseLogger;
}

/** A session is bound to the authorization that opened it: another client's token cannot drive it. */
function foreignSession(session: Session, request: FastifyRequest): boolean {
  return session.grantId !== authOf(request)?.grantId;
}

/** The JSON-RPC messages of a POST body: a batch holds several. */
function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** Anything but the initialized notification (a request, another notification, a response to the server). */
function isCall(message: unknown): boolean {
  const m = message as { method?: unknown } | null;
  return !(m && typeof m === 'object' && (m.method === 'notifications/initialized' || m.method === 'initialize'));
}

/** Host names always accepted (loopback); the web view (services/view/) accepts the same. */
export const LOCAL_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

function rpcError(reply: FastifyReply, status: number, code: number, message: string, retryAfterSeconds?: number) {
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export function noSchemas(): never {
  throw new Error('services/mcp/http.ts: its routes declare no JSON schema (Fastify runs without Ajv); validate in the handler, or give Fastify its compilers back');
}

export async function buildHttpApp(opts: HttpOptions): Promise<BrainHttpApp> {
  const app = Fastify({
    loggerInstance: opts.logger,
    logController: new QuietRequestLog(),
    bodyLimit: opts.bodyLimitBytes ?? 4 * 1024 * 1024,
    requestTimeout: 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 10_000,
    return503OnClosing: true,
    genReqId: () => randomUUID(),
    // No route here declares a schema, so Fastify never needs the compilers it would otherwise
    // load when the first app is built: Ajv and fast-json-stringify, about half a second of a
    // start on a 2-core machine. A route given a schema fails at once, saying so.
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
  });
  const sessions = new Map<string, Session>();
  const limiter = new RateLimiter(opts.requestsPerSecond ?? 20, opts.burst ?? 60);
  const hosts = [...LOCAL_HOSTS, ...(opts.allowedHosts ?? [])];
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const unusedIdleMs = Math.min(idleMs, opts.unusedSessionIdleMs ?? DEFAULT_UNUSED_SESSION_IDLE_MS);
  const evictIdleMs = opts.evictIdleMs ?? DEFAULT_EVICT_IDLE_MS;
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxPerAddress = opts.maxSessionsPerAddress ?? DEFAULT_MAX_SESSIONS_PER_ADDRESS;
  // Initializes under way (their session is not in the map until the transport registers it).
  let pendingTotal = 0;
  const pendingByAddress = new Map<string, number>();
  const drainMs = opts.drainMs ?? DEFAULT_DRAIN_MS;
  let inFlight = 0;
  let shuttingDown = false;
  // Wakes the shutdown drain: a request finished, or closeNow() was called.
  let wake: (() => void) | undefined;
  let hurry = false;

  /** Ends one session: out of the map first (its id answers 404 from now on), then transport and server closed. */
  const endSession = (sid: string, reason: string) => {
    const s = sessions.get(sid);
    if (!s) return Promise.resolve();
    sessions.delete(sid);
    limiter.forget(sid);
    s.log.info({ sessionId: sid, reason }, 'session closed');
    return Promise.allSettled([s.transport.close(), s.server.close()]).then(() => undefined);
  };

  const openAt = (address: string) => {
    let n = pendingByAddress.get(address) ?? 0;
    for (const s of sessions.values()) if (s.address === address) n++;
    return n;
  };

  /**
   * The session to close to make room among those `within` accepts: the oldest that never
   * made a call (an open stream does not protect it), else the longest idle one that made
   * calls, with no request or stream open and idle for evictIdleMs. None: no room.
   */
  const victim = (within: (s: Session) => boolean, now: number): string | undefined => {
    let unused: [string, Session] | undefined;
    let idle: [string, Session] | undefined;
    for (const entry of sessions) {
      const s = entry[1];
      if (!within(s) || s.inFlight > 0) continue;
      if (!s.used) {
        if (!unused || s.lastSeen < unused[1].lastSeen) unused = entry;
      } else if (s.streams === 0 && now - s.lastSeen >= evictIdleMs && (!idle || s.lastSeen < idle[1].lastSeen)) {
        idle = entry;
      }
    }
    return (unused ?? idle)?.[0];
  };

  /** Room for one more session from `address`, closing one to make it if a cap is reached; false: none. */
  const makeRoom = (address: string): boolean => {
    const now = Date.now();
    if (openAt(address) >= maxPerAddress) {
      const sid = victim((s) => s.address === address, now);
      if (!sid) return false;
      void endSession(sid, `closed for a new session: ${maxPerAddress} open from ${address}`);
    }
    if (sessions.size + pendingTotal >= maxSessions) {
      const sid = victim(() => true, now);
      if (!sid) return false;
      void endSession(sid, `closed for a new session: ${maxSessions} open`);
    }
    return true;
  };

  /** Counts a request (and, for GET, its stream) until its response is finished or its socket closed. */
  const track = (session: Session | undefined, reply: FastifyReply, kind: 'request' | 'stream') => {
    if (kind === 'request') {
      inFlight++;
      if (session) session.inFlight++;
    } else if (session) session.streams++;
    reply.raw.once('close', () => {
      if (kind === 'request') {
        inFlight--;
        if (session) session.inFlight--;
      } else if (session) session.streams--;
      if (session) session.lastSeen = Date.now();
      wake?.();
    });
  };

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

  if (opts.oauth) await app.register(oauthRoutes(opts.oauth));

  await app.register(
    async (mcp) => {
      if (opts.oauth) mcp.addHook('onRequest', oauthGuard(opts.oauth, opts.bearerToken));
      else if (opts.bearerToken) mcp.addHook('onRequest', bearerAuth(opts.bearerToken, `claude-brain-${opts.subject}`));
      // Rate limit: GET and DELETE cost one token as they arrive; a POST costs one per JSON-RPC
      // message in its body (so once the body is read), a batch as many as it holds.
      const limited = (request: FastifyRequest, reply: FastifyReply, cost: number) => {
        const key = (request.headers['mcp-session-id'] as string | undefined) ?? request.ip;
        if (cost > limiter.burst) return rpcError(reply, 400, -32600, `a JSON-RPC batch may hold at most ${limiter.burst} messages`);
        if (!limiter.take(key, cost)) return rpcError(reply, 429, -32000, 'too many requests; slow down and retry in a second', 1);
        return undefined;
      };
      mcp.addHook('onRequest', async (request, reply) => {
        const sessionId = request.headers['mcp-session-id'] as string | undefined;
        // Every log line of this request carries its session (and fastify's request id).
        if (sessionId) request.log = request.log.child({ sessionId });
        if (request.method !== 'POST') return limited(request, reply, 1);
      });
      mcp.addHook('preHandler', async (request, reply) => {
        if (request.method === 'POST') return limited(request, reply, Math.max(1, messagesOf(request.body).length));
      });

      mcp.post('/mcp', async (request, reply) => {
        const id = request.headers['mcp-session-id'] as string | undefined;
        let session = id ? sessions.get(id) : undefined;
        if (id && !session) return rpcError(reply, 404, -32001, 'unknown or expired session; initialize a new one');
        if (session && foreignSession(session, request)) return rpcError(reply, 403, -32001, 'this session was opened with another authorization; initialize a new one');
        if (shuttingDown) return rpcError(reply, 503, -32000, 'the server is shutting down');
        let fresh = false;
        const address = request.ip;
        if (!session) {
          if (!isInitializeRequest(request.body)) return rpcError(reply, 400, -32600, 'no session: the first request must be initialize');
          if (!makeRoom(address)) return rpcError(reply, 503, -32000, 'too many open sessions, all of them in use; retry in a few seconds', 5);
          const auth = authOf(request);
          const server = opts.createServer(auth);
          const log = request.log;
          const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => {
              sessions.set(sid, created);
              log.info({ sessionId: sid }, 'session opened');
            },
            // The SDK calls this on DELETE /mcp, then closes the transport.
            onsessionclosed: (sid) => endSession(sid, 'deleted by the client'),
          });
          const created: Session = { transport, server, lastSeen: Date.now(), streams: 0, inFlight: 0, address, used: false, grantId: auth?.grantId, log };
          session = created;
          fresh = true;
        } else if (!session.used && messagesOf(request.body).some(isCall)) {
          session.used = true;
        }
        session.lastSeen = Date.now();
        track(session, reply, 'request');
        if (fresh) {
          pendingTotal++;
          pendingByAddress.set(address, (pendingByAddress.get(address) ?? 0) + 1);
        }
        try {
          if (fresh) await session.server.connect(session.transport);
          reply.hijack();
          await session.transport.handleRequest(request.raw, reply.raw, request.body);
        } finally {
          if (fresh) {
            pendingTotal--;
            const n = (pendingByAddress.get(address) ?? 1) - 1;
            if (n > 0) pendingByAddress.set(address, n);
            else pendingByAddress.delete(address);
          }
        }
        // An initialize that did not open a session (refused by the transport) leaves nothing behind.
        if (fresh && !(session.transport.sessionId && sessions.has(session.transport.sessionId))) {
          await Promise.allSettled([session.transport.close(), session.server.close()]);
        }
      });

      // GET opens the server-to-client stream, DELETE ends the session: both need one.
      const forward = async (request: FastifyRequest, reply: FastifyReply) => {
        const id = request.headers['mcp-session-id'] as string | undefined;
        const session = id ? sessions.get(id) : undefined;
        if (!session) return rpcError(reply, id ? 404 : 400, -32001, id ? 'unknown or expired session; initialize a new one' : 'mcp-session-id header required');
        if (foreignSession(session, request)) return rpcError(reply, 403, -32001, 'this session was opened with another authorization; initialize a new one');
        session.lastSeen = Date.now();
        track(session, reply, request.method === 'GET' ? 'stream' : 'request');
        reply.hijack();
        await session.transport.handleRequest(request.raw, reply.raw);
        // The SDK ends the session on a successful DELETE (onsessionclosed); make sure of it.
        if (request.method === 'DELETE' && reply.raw.statusCode < 300) await endSession(id!, 'deleted by the client');
      };
      mcp.get('/mcp', forward);
      mcp.delete('/mcp', forward);
    },
  );

  // Idle: no request for idleMs and no open stream or request. A GET stream is a client
  // listening, not an idle one.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [sid, s] of sessions) {
      if (s.streams > 0 || s.inFlight > 0) continue;
      if (now - s.lastSeen > idleMs) void endSession(sid, `idle for ${Math.round(idleMs / 1000)} s`);
      else if (!s.used && now - s.lastSeen > unusedIdleMs) void endSession(sid, `no call beyond initialize for ${Math.round(unusedIdleMs / 1000)} s`);
    }
  }, sweepIntervalMs(unusedIdleMs));
  sweep.unref();

  const control: McpSessions = {
    get count() {
      return sessions.size;
    },
    get openStreams() {
      let n = 0;
      for (const s of sessions.values()) n += s.streams;
      return n;
    },
    get inFlight() {
      return inFlight;
    },
    closeNow() {
      hurry = true;
      wake?.();
    },
  };

  // Fastify runs preClose after it has begun answering new requests with 503 and before it
  // closes the listener, which waits for every connection: streams must be ended here.
  app.addHook('preClose', async () => {
    shuttingDown = true;
    clearInterval(sweep);
    app.server.closeIdleConnections();
    const started = Date.now();
    const waiting = inFlight;
    while (inFlight > 0 && !hurry && Date.now() - started < drainMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, drainMs - (Date.now() - started)));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    const cut = inFlight;
    const count = sessions.size;
    await Promise.allSettled([...sessions.keys()].map((sid) => endSession(sid, 'server shutting down')));
    // What is left (a request past the drain, a stream the transport did not end) is cut.
    app.server.closeAllConnections();
    opts.logger.info(
      { sessions: count, inFlightAtClose: waiting, cutShort: cut, drainedMs: Date.now() - started, skippedDrain: hurry },
      `closed ${count} MCP session(s)`,
    );
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.keys()].map((sid) => endSession(sid, 'server closed')));
  });
  app.decorate('mcpSessions', control);
  return app as unknown as BrainHttpApp;
}

/** A subject's fastify app, with its MCP sessions (`mcpSessions`) for shutdown and tests. */
export type BrainHttpApp = ReturnType<typeof Fastify> & { readonly mcpSessions: McpSessions };
