// The OAuth endpoints on a subject's HTTP app: discovery, registration, authorization and
// token. In their own Fastify scope, so their form-body parser and OAuth-shaped errors do
// not touch /mcp. The app's Host and Origin checks run first, as for every route.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter } from '../mcp/rate-limit.js';
import type { OAuthAuthority } from './authority.js';
import { completeAuthorization, startAuthorization, type AuthorizeAnswer } from './authorize.js';
import { AUTHORIZATION_SERVER_PATH, authorizationServerMetadata, PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from './metadata.js';
import { registerClient } from './registration.js';
import { exchangeToken } from './token.js';

type Fields = Record<string, string | undefined>;

/** Only the string fields of a parsed body or query (a repeated field is refused by ignoring it). */
function fields(value: unknown): Fields {
  const out: Fields = {};
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

function send(reply: FastifyReply, a: AuthorizeAnswer) {
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  if (a.kind === 'redirect') return reply.code(302).header('location', a.location).send();
  return reply
    .code(a.status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .header('x-frame-options', 'DENY')
    .send(a.html);
}

/** The routes as a Fastify plugin: `app.register(oauthRoutes(authority))`. */
export function oauthRoutes(authority: OAuthAuthority): FastifyPluginAsync {
  return async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
      if ((error.statusCode ?? 500) < 500) return reply.code(400).send({ error: 'invalid_request', error_description: 'the request body could not be read' });
      request.log.error({ err: error }, 'oauth endpoint failed');
      return reply.code(500).send({ error: 'server_error', error_description: 'the brain could not complete this request' });
    });
    const origin = (request: FastifyRequest) => authority.origin(request);
    // Registration and authorization requests are open to anyone who reaches the server, and
    // each writes the store: a few a second per address (behind a tunnel, every visitor shares
    // the tunnel's address, which is fine for one owner).
    const limiter = new RateLimiter(5, 60);
    scope.addHook('onRequest', async (request, reply) => {
      if (request.method === 'GET' && request.url.startsWith('/.well-known/')) return;
      if (!limiter.take(request.ip)) return reply.code(429).header('retry-after', '2').send({ error: 'slow_down', error_description: 'too many requests; retry in a few seconds' });
    });

    const prm = async (request: FastifyRequest) => protectedResourceMetadata(authority, origin(request));
    scope.get(PROTECTED_RESOURCE_PATH, prm);
    scope.get(`${PROTECTED_RESOURCE_PATH}/mcp`, prm);
    // With an external issuer this server is a protected resource only.
    if (authority.external) return;
    scope.get(AUTHORIZATION_SERVER_PATH, async (request) => authorizationServerMetadata(origin(request)));
    scope.get(`${AUTHORIZATION_SERVER_PATH}/mcp`, async (request) => authorizationServerMetadata(origin(request)));

    scope.post('/register', async (request, reply) => {
      const r = registerClient(authority, request.body);
      return reply.code(r.status).header('cache-control', 'no-store').send(r.body);
    });
    scope.get('/authorize', async (request, reply) =>
      send(reply, startAuthorization(authority, fields(request.query), origin(request), (r) => authority.isOwnResource(request, r))),
    );
    scope.post('/authorize', async (request, reply) => send(reply, completeAuthorization(authority, fields(request.body), origin(request))));
    scope.post('/token', async (request, reply) => {
      const r = exchangeToken(authority, fields(request.body), request.headers.authorization, origin(request));
      return reply.code(r.status).header('cache-control', 'no-store').header('pragma', 'no-cache').send(r.body);
    });
  };
}
