// Optional bearer token per subject, compared in constant time (both sides hashed first,
// so the comparison does not leak the token's length either). The web view (services/view/)
// checks the same token with tokenIn, and also as a Basic password, which a browser can send.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * What an Authorization header says of the token: 'ok', 'wrong' (a credential that does not
 * match) or 'missing'. `basic`: a Basic credential's password counts too (any user name).
 */
export function tokenIn(header: string | undefined, token: string, opts: { basic?: boolean } = {}): 'ok' | 'wrong' | 'missing' {
  const expected = digest(token);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  let given = bearer?.[1];
  if (given === undefined && opts.basic) {
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : undefined;
    if (decoded !== undefined && decoded.includes(':')) given = decoded.slice(decoded.indexOf(':') + 1);
  }
  if (given === undefined) return 'missing';
  return timingSafeEqual(digest(given), expected) ? 'ok' : 'wrong';
}

export function bearerAuth(token: string, realm: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const state = tokenIn(request.headers.authorization, token);
    if (state === 'ok') return;
    const wrong = state === 'wrong';
    await reply
      .code(401)
      .header('WWW-Authenticate', `Bearer realm="${realm}"${wrong ? ', error="invalid_token"' : ''}`)
      .send({ jsonrpc: '2.0', error: { code: -32001, message: wrong ? 'invalid bearer token' : 'a bearer token is required' }, id: null });
  };
}
