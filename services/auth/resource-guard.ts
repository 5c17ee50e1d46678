// The protected resource's check on /mcp: every request carries a bearer token that is ours
// (signature), for this subject (aud: one of this subject's resource URLs), unexpired, and
// whose grant the owner has not revoked. Otherwise 401 with WWW-Authenticate naming the
// protected-resource metadata, so a client knows where to get one. The token is only read
// here: it is never passed to the database or to anything else.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthAuthority } from './authority.js';
import { challenge } from './metadata.js';
import { parseScope, SUPPORTED_SCOPES } from './scopes.js';
import { verifyAccessToken } from './tokens.js';

/** Who a request (and the MCP session it opens) acts for. */
export interface RequestAuth {
  /** The grant (or 'static' for the owner's bearer token file): a session stays bound to it. */
  grantId: string;
  scopes: readonly string[];
  /** The OAuth client's name, recorded with its writes; undefined for the owner's own static token. */
  client: string | undefined;
}

const auths = new WeakMap<object, RequestAuth>();

/** What the guard established for this request, if it ran. */
export function authOf(request: FastifyRequest): RequestAuth | undefined {
  return auths.get(request.raw);
}

const digest = (v: string) => createHash('sha256').update(v).digest();

export function oauthGuard(authority: OAuthAuthority, staticToken?: string) {
  const staticDigest = staticToken ? digest(staticToken) : undefined;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const origin = authority.origin(request);
    const refuse = (description?: string) =>
      reply
        .code(401)
        .header('WWW-Authenticate', challenge(origin, description ? { code: 'invalid_token', description } : undefined))
        .send({ jsonrpc: '2.0', error: { code: -32001, message: description ? `invalid token: ${description}` : 'authorization required: get a token (OAuth) from this server' }, id: null });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) return refuse();
    const token = match[1]!;
    // The owner's bearer token file (the CLI and local clients): full access, as without OAuth.
    if (staticDigest && timingSafeEqual(digest(token), staticDigest)) {
      auths.set(request.raw, { grantId: 'static', scopes: [...SUPPORTED_SCOPES], client: undefined });
      return;
    }
    if (authority.external) {
      const verified = await authority.external.verify(token, (aud) => authority.isOwnResource(request, aud), authority.now());
      if (typeof verified === 'string') return refuse(verified);
      // Revocation is the issuer's business: its tokens should be short-lived.
      auths.set(request.raw, { grantId: `external:${verified.subject}:${verified.client}`, scopes: verified.scopes, client: verified.client });
      request.log = request.log.child({ client: verified.client, sub: verified.subject });
      return;
    }
    const claims = verifyAccessToken(token, authority.key);
    if (!claims) return refuse('not a token issued by this brain');
    if (!authority.isOwnResource(request, claims.aud)) return refuse(`the token is for another resource, not ${authority.resource(origin)}`);
    if (!authority.origins(request).has(claims.iss)) return refuse('the token was issued by another server');
    if (claims.exp * 1000 <= authority.now()) return refuse('the token expired; refresh it');
    const grant = authority.store.read().grants[claims.gid];
    if (!grant || grant.revokedAt) return refuse('the grant was revoked; connect again');
    // A grant narrowed since (refresh with a smaller scope) narrows its live tokens too.
    const held = parseScope(grant.scope);
    auths.set(request.raw, { grantId: grant.id, scopes: parseScope(claims.scope).filter((s) => held.includes(s)), client: grant.clientName });
    // Every log line of the request (and of a session it opens) names the client: the record of remote reads.
    request.log = request.log.child({ client: grant.clientName, grant: grant.id });
  };
}
