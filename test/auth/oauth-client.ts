// A remote client's side of the OAuth flow, over real HTTP against a subject server:
// discovery from the 401, registration, the authorize page, the owner's approval (as
// `brain auth approve` does it, on the same store file), the code typed into the page, and
// the token exchange with the PKCE verifier.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { approve } from '../../services/auth/approval.js';
import type { AuthStore } from '../../services/auth/store.js';

export const REDIRECT = 'http://127.0.0.1:9/callback';
const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
export const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function postMcp(mcpUrl: string, token?: string, body: unknown = INIT, headers: Record<string, string> = {}) {
  const res = await fetch(mcpUrl, { method: 'POST', headers: { ...JSON_RPC, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' as const });

/** Registers a public client (RFC 7591) through the registration endpoint the metadata names. */
export async function register(registrationEndpoint: string, name: string): Promise<string> {
  const res = await fetch(registrationEndpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The request id the authorize page asks the owner to approve. */
export function requestIdOf(html: string): string {
  const m = /brain auth approve ([A-Z0-9]+)/.exec(html);
  if (!m) throw new Error(`no request id on the page:\n${html}`);
  return m[1]!;
}

export interface Flow {
  clientId: string;
  tokens: Tokens;
  tokenEndpoint: string;
  resource: string;
}

/** The whole flow from nothing to tokens, as a remote client and the owner do it. */
export async function runFlow(mcpUrl: string, store: AuthStore, opts: { name?: string; scope?: string; readOnly?: boolean; now?: () => number } = {}): Promise<Flow> {
  // 1. Discovery: the 401 names the protected-resource metadata, which names the authorization server.
  const unauthorized = await postMcp(mcpUrl);
  expect(unauthorized.status).toBe(401);
  const prmUrl = /resource_metadata="([^"]+)"/.exec(unauthorized.headers.get('www-authenticate') ?? '')?.[1];
  expect(prmUrl).toBeDefined();
  const prm = (await (await fetch(prmUrl!)).json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
  expect(prm.resource).toBe(mcpUrl);
  const asMeta = (await (await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  expect(asMeta.code_challenge_methods_supported).toEqual(['S256']);
  // 2. Registration.
  const clientId = await register(asMeta.registration_endpoint as string, opts.name ?? 'Claude on the phone');
  // 3. Authorization request with PKCE: the page waits for the owner.
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const authorizeUrl = new URL(asMeta.authorization_endpoint as string);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state, resource: prm.resource, scope: opts.scope ?? 'brain:read brain:write' })) {
    authorizeUrl.searchParams.set(k, v);
  }
  const pageRes = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(pageRes.status).toBe(200);
  const id = requestIdOf(await pageRes.text());
  // 4. The owner approves on the brain's machine and types the one-time code into the page.
  const { code: oneTime } = approve(store, id, { readOnly: opts.readOnly ?? false }, opts.now?.());
  const typed = await fetch(authorizeUrl.origin + '/authorize', form({ request: id, code: oneTime }));
  expect(typed.status).toBe(302);
  const back = new URL(typed.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe(state);
  // 5. Token exchange.
  const tokenRes = await fetch(asMeta.token_endpoint as string, form({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: prm.resource }));
  expect(tokenRes.status).toBe(200);
  return { clientId, tokens: (await tokenRes.json()) as Tokens, tokenEndpoint: asMeta.token_endpoint as string, resource: prm.resource };
}

export async function refresh(flow: Flow, refreshToken = flow.tokens.refresh_token, extra: Record<string, string> = {}) {
  const res = await fetch(flow.tokenEndpoint, form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: flow.clientId, ...extra }));
  return { status: res.status, body: (await res.json()) as Tokens & { error?: string; error_description?: string } };
}
