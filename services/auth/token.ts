// The token endpoint: authorization code (with its PKCE verifier) and refresh token grants.
// Access tokens are short-lived JWTs for this subject's resource (aud); refresh tokens rotate
// on every use, and a spent one presented again revokes its grant (it must have leaked).
import type { OAuthAuthority } from './authority.js';
import { parseScope } from './scopes.js';
import type { AuthState, Grant, StoredClient } from './store.js';
import { hashToken, pkceMatches, randomToken, sameSecret, signAccessToken } from './tokens.js';

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

const fail = (status: number, error: string, description: string): TokenAnswer => ({ status, body: { error, error_description: description } });

/** Refresh tokens already spent kept per grant, to recognise a replay. */
const SPENT_KEPT = 20;

/** The client, authenticated: a public client by its id; a confidential one by its secret too (post body or HTTP Basic). */
function authenticate(state: AuthState, form: Record<string, string | undefined>, authorization: string | undefined): StoredClient | TokenAnswer {
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    id = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  const client = id ? state.clients[id] : undefined;
  if (!client) return fail(401, 'invalid_client', 'unknown client; register again');
  if (client.secretHash && !(secret && sameSecret(hashToken(secret), client.secretHash))) return fail(401, 'invalid_client', 'client authentication failed');
  return client;
}

function issue(authority: OAuthAuthority, grant: Grant, origin: string, now: number): { access: string; refresh: string; expiresIn: number } {
  const iat = Math.floor(now / 1000);
  const access = signAccessToken(
    { iss: origin, aud: grant.resource, sub: 'owner', client_id: grant.clientId, gid: grant.id, scope: grant.scope, iat, exp: iat + authority.accessTtlSeconds, jti: randomToken(12) },
    authority.key,
  );
  const refresh = randomToken();
  if (grant.refreshHash) grant.spentRefreshHashes = [grant.refreshHash, ...grant.spentRefreshHashes].slice(0, SPENT_KEPT);
  grant.refreshHash = hashToken(refresh);
  grant.refreshExpiresAt = now + authority.refreshTtlSeconds * 1000;
  grant.lastUsedAt = now;
  return { access, refresh, expiresIn: authority.accessTtlSeconds };
}

const answer = (t: { access: string; refresh: string; expiresIn: number }, scope: string): TokenAnswer => ({
  status: 200,
  body: { access_token: t.access, token_type: 'Bearer', expires_in: t.expiresIn, refresh_token: t.refresh, scope },
});

export function exchangeToken(authority: OAuthAuthority, form: Record<string, string | undefined>, authorization: string | undefined, origin: string): TokenAnswer {
  const now = authority.now();
  return authority.store.update((state) => {
    const client = authenticate(state, form, authorization);
    if ('status' in client) return client;
    if (form.grant_type === 'authorization_code') {
      const key = hashToken(form.code ?? '');
      const code = state.codes[key];
      // Single use: gone from the store whatever happens next.
      delete state.codes[key];
      if (!code || code.expiresAt <= now || code.subject !== authority.subject) return fail(400, 'invalid_grant', 'the authorization code is unknown, used or expired');
      if (code.clientId !== client.id) return fail(400, 'invalid_grant', 'the code was issued to another client');
      if (form.redirect_uri !== undefined && form.redirect_uri !== code.redirectUri) return fail(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
      if (!form.code_verifier || !pkceMatches(form.code_verifier, code.codeChallenge)) return fail(400, 'invalid_grant', 'PKCE verification failed');
      if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== code.resource) return fail(400, 'invalid_target', 'resource differs from the authorization request');
      const grant: Grant = {
        id: `g-${randomToken(9)}`,
        clientId: client.id,
        clientName: client.name,
        subject: code.subject,
        resource: code.resource,
        scope: code.scope,
        createdAt: now,
        refreshHash: '',
        refreshExpiresAt: now,
        spentRefreshHashes: [],
      };
      state.grants[grant.id] = grant;
      return answer(issue(authority, grant, origin, now), grant.scope);
    }
    if (form.grant_type === 'refresh_token') {
      const hash = hashToken(form.refresh_token ?? '');
      const grant = Object.values(state.grants).find((g) => g.refreshHash === hash);
      if (!grant) {
        const replayed = Object.values(state.grants).find((g) => g.spentRefreshHashes.includes(hash));
        if (replayed && !replayed.revokedAt) replayed.revokedAt = now;
        return fail(400, 'invalid_grant', replayed ? 'this refresh token was already used; the grant is revoked, connect again' : 'unknown refresh token');
      }
      if (grant.clientId !== client.id) return fail(400, 'invalid_grant', 'the refresh token was issued to another client');
      if (grant.revokedAt) return fail(400, 'invalid_grant', 'the grant was revoked by the owner; connect again');
      if (grant.refreshExpiresAt <= now) return fail(400, 'invalid_grant', 'the refresh token expired; connect again');
      if (grant.subject !== authority.subject) return fail(400, 'invalid_grant', 'the refresh token is for another subject');
      if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== grant.resource) return fail(400, 'invalid_target', 'resource differs from the grant');
      // A narrower scope may be asked for (never a wider one); it narrows the grant for good.
      if (form.scope !== undefined) {
        const asked = parseScope(form.scope);
        const held = parseScope(grant.scope);
        if (asked.length === 0 || asked.some((s) => !held.includes(s))) return fail(400, 'invalid_scope', `the grant holds ${grant.scope}`);
        grant.scope = asked.join(' ');
      }
      return answer(issue(authority, grant, origin, now), grant.scope);
    }
    return fail(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }, now);
}
