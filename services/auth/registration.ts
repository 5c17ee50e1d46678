// Dynamic client registration (RFC 7591), as remote Claude clients and the MCP SDKs use it.
// Registration is open (a client cannot be known in advance) and grants nothing: a client
// reaches the brain only once the owner approves one of its authorization requests.
import type { OAuthAuthority } from './authority.js';
import { humanCode, type StoredClient } from './store.js';
import { hashToken, randomToken } from './tokens.js';

export interface RegistrationError {
  error: 'invalid_client_metadata' | 'invalid_redirect_uri';
  error_description: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

/** https anywhere; http only to loopback (native apps); a private-use scheme (com.example.app:/cb); never a fragment. */
export function redirectUriProblem(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.hash) return 'must not have a fragment';
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `may not use ${u.protocol}`;
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname)) return 'may use http only for a loopback address; use https';
  return undefined;
}

/** The printable part of a client's self-chosen name, at most 80 characters (it is shown to the owner and recorded in the outbox). */
export function cleanClientName(name: unknown): string {
  const text = typeof name === 'string' ? name.replace(/[\p{C}]/gu, ' ').replace(/\s+/g, ' ').trim() : '';
  return (text || 'unnamed client').slice(0, 80);
}

export function registerClient(authority: OAuthAuthority, body: unknown): { status: 201; body: Record<string, unknown> } | { status: 400; body: RegistrationError } {
  const meta = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || !uris.every((u) => typeof u === 'string' && u.length <= 2000)) {
    return { status: 400, body: { error: 'invalid_redirect_uri', error_description: 'redirect_uris must be a list of 1 to 10 URIs' } };
  }
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) return { status: 400, body: { error: 'invalid_redirect_uri', error_description: `redirect URI ${problem}` } };
  }
  const method = meta.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'client_secret_post' && method !== 'client_secret_basic') {
    return { status: 400, body: { error: 'invalid_client_metadata', error_description: 'token_endpoint_auth_method must be none, client_secret_post or client_secret_basic' } };
  }
  const grantTypes = (meta.grant_types as unknown[] | undefined) ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    return { status: 400, body: { error: 'invalid_client_metadata', error_description: 'grant_types may hold authorization_code and refresh_token only' } };
  }
  const now = authority.now();
  const secret = method === 'none' ? undefined : randomToken();
  const client: StoredClient = {
    id: `brain-${humanCode(12).toLowerCase()}`,
    name: cleanClientName(meta.client_name),
    redirectUris: [...(uris as string[])],
    ...(secret ? { secretHash: hashToken(secret) } : {}),
    createdAt: now,
  };
  authority.store.update((state) => {
    state.clients[client.id] = client;
  }, now);
  return {
    status: 201,
    body: {
      client_id: client.id,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: method,
      grant_types: grantTypes,
      response_types: ['code'],
    },
  };
}
