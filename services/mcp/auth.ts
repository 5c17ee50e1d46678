// Optional bearer token per subject, compared in constant time (both sides hashed first,
// so the comparison does not leak the token's length either).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function bearerAuth(token: string, realm: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), expected)) return;
    await reply
      .code(401)
      .header('WWW-Authenticate', `Bearer realm="${realm}"${match ? ', error="invalid_token"' : ''}`)
      .send({ jsonrpc: '2.0', error: { code: -32001, message: match ? 'invalid bearer token' : 'a bearer token is required' }, id: null });
  };
}
