// The view's HTTP rules, the MCP servers' own (services/mcp/http.ts, auth.ts): Host and Origin
// checked on every request against loopback and BRAIN_ALLOWED_HOSTS (DNS rebinding), an
// optional token; and for a browser: read-only methods, a strict Content-Security-Policy
// (nothing but this origin's stylesheet; no script, no frames, no form posts elsewhere), and
// the usual hardening headers.
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tokenIn } from '../mcp/auth.js';
import { LOCAL_HOSTS } from '../mcp/http.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "script-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'cache-control': 'no-store',
});

export interface SecurityOptions {
  allowedHosts?: readonly string[];
  /** Optional: a client sends it as a bearer token, or a browser as the password of Basic auth. */
  token?: string | undefined;
}

export function applySecurity(app: FastifyInstance, opts: SecurityOptions): void {
  const hosts = [...LOCAL_HOSTS, ...(opts.allowedHosts ?? [])];
  app.addHook('onRequest', hostHeaderValidation(hosts));
  app.addHook('onRequest', originValidation(hosts));
  // A viewer never writes: every method but GET is refused, on every path, before anything else.
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET') await reply.code(405).header('allow', 'GET').type('text/plain; charset=utf-8').send('405 Method Not Allowed: this view is read-only\n');
  });
  const token = opts.token;
  if (token) {
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.url === '/healthz') return;
      const state = tokenIn(request.headers.authorization, token, { basic: true });
      if (state === 'ok') return;
      await reply
        .code(401)
        .header('www-authenticate', 'Basic realm="claude-brain view", charset="UTF-8"')
        .type('text/plain; charset=utf-8')
        .send(state === 'wrong' ? 'invalid token\n' : 'a token is required: the password of this prompt, or a bearer token\n');
    });
  }
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    return payload;
  });
}
