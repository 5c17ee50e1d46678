// The built-in authorization server's refusals, over real HTTP: redirect URIs a registration
// may not use, a confidential client without its secret, wrong one-time codes (the request
// goes after five), the owner cancelling, a code used twice, and a flood of registrations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, listPending } from '../../services/auth/approval.js';
import { OAuthAuthority } from '../../services/auth/authority.js';
import { MAX_CODE_ATTEMPTS } from '../../services/auth/authorize.js';
import { AuthStore } from '../../services/auth/store.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { startTestServer } from '../support/mcp.js';
import { form, pkce, REDIRECT, register, requestIdOf } from './oauth-client.js';

describe('[pglite] the built-in authorization server refuses', () => {
  let brain: BrainUnderTest;
  let dir: string;
  let store: AuthStore;
  let server: RunningSubjectServer;
  let origin: string;

  beforeAll(async () => {
    brain = await embeddedBrain();
    dir = mkdtempSync(join(tmpdir(), 'brain-oauth-as-'));
    store = new AuthStore(dir);
    server = await startTestServer(brain, 'homelab', { oauth: new OAuthAuthority({ subject: 'homelab', store }) });
    origin = new URL(server.url).origin;
  });
  afterAll(async () => {
    await server?.close();
    await brain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const registerWith = (body: unknown) => fetch(`${origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function waitingRequest(clientId: string, challenge = pkce().challenge, redirect = REDIRECT): Promise<string> {
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 's1' });
    const page = await fetch(`${origin}/authorize?${q}`, { redirect: 'manual' });
    expect(page.status).toBe(200);
    return requestIdOf(await page.text());
  }

  it('registration: no redirect URI, http to a remote host, javascript:, a fragment', async () => {
    for (const uris of [[], ['http://evil.example/cb'], ['javascript:alert(1)'], ['https://claude.ai/cb#x']]) {
      const r = await registerWith({ client_name: 'x', redirect_uris: uris });
      expect(r.status, JSON.stringify(uris)).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    expect((await registerWith({ client_name: 'ok', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] })).status).toBe(201);
  });

  it('authorize: an unknown client or an unregistered redirect URI is shown an error page, never redirected', async () => {
    const unknown = await fetch(`${origin}/authorize?client_id=nobody&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    const id = await register(`${origin}/register`, 'redirect check');
    const other = await fetch(`${origin}/authorize?client_id=${id}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&response_type=code`, { redirect: 'manual' });
    expect(other.status).toBe(400);
    expect(other.headers.get('location')).toBeNull();
  });

  it('a confidential client gets no token without its secret', async () => {
    const reg = (await (await registerWith({ client_name: 'server app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' })).json()) as { client_id: string; client_secret: string };
    expect(reg.client_secret.length).toBeGreaterThan(30);
    expect(JSON.stringify(store.read())).not.toContain(reg.client_secret);
    const { verifier, challenge } = pkce();
    const id = await waitingRequest(reg.client_id, challenge);
    const { code: oneTime } = approve(store, id);
    const back = await fetch(`${origin}/authorize`, form({ request: id, code: oneTime }));
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const without = await fetch(`${origin}/token`, form({ grant_type: 'authorization_code', code, client_id: reg.client_id, code_verifier: verifier, redirect_uri: REDIRECT }));
    expect(without.status).toBe(401);
    const wrong = await fetch(`${origin}/token`, form({ grant_type: 'authorization_code', code, client_id: reg.client_id, client_secret: 'guess', code_verifier: verifier, redirect_uri: REDIRECT }));
    expect(wrong.status).toBe(401);
    // The client is authenticated before the code is looked at, so those tries did not spend it.
    const withSecret = await fetch(`${origin}/token`, form({ grant_type: 'authorization_code', code, client_id: reg.client_id, client_secret: reg.client_secret, code_verifier: verifier, redirect_uri: REDIRECT }));
    expect(withSecret.status).toBe(200);
  });

  it('a code is single use, needs the right verifier, and wrong one-time codes end the request after five', async () => {
    const clientId = await register(`${origin}/register`, 'code checks');
    const { verifier, challenge } = pkce();
    const id = await waitingRequest(clientId, challenge);
    // Typed before the owner approved: the page says to run the command.
    expect(await (await fetch(`${origin}/authorize`, form({ request: id, code: 'AAAAAAAA' }))).text()).toContain('Not approved yet');
    const { code: oneTime } = approve(store, id);
    const back = await fetch(`${origin}/authorize`, form({ request: id, code: oneTime.toLowerCase() }));
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const wrongVerifier = await fetch(`${origin}/token`, form({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: pkce().verifier }));
    expect(((await wrongVerifier.json()) as { error: string }).error).toBe('invalid_grant');
    const again = await fetch(`${origin}/token`, form({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier }));
    expect(again.status).toBe(400);

    const second = await waitingRequest(clientId);
    approve(store, second);
    for (let i = 0; i < MAX_CODE_ATTEMPTS - 1; i++) {
      expect(await (await fetch(`${origin}/authorize`, form({ request: second, code: 'WRONGCODE' }))).text()).toContain('not right');
    }
    const last = await fetch(`${origin}/authorize`, form({ request: second, code: 'WRONGCODE' }));
    expect(await last.text()).toContain('Request expired');
    expect(listPending(store).filter((p) => p.id === second)).toEqual([]);
  });

  it('the owner may cancel: the client is sent back with access_denied', async () => {
    const clientId = await register(`${origin}/register`, 'cancelled');
    const id = await waitingRequest(clientId);
    const r = await fetch(`${origin}/authorize`, form({ request: id, deny: '1' }));
    expect(r.status).toBe(302);
    const back = new URL(r.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('s1');
  });

  it('a flood of registrations is slowed down, and never-approved clients do not pile up in the store', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) statuses.push((await registerWith({ client_name: `flood ${i}`, redirect_uris: [REDIRECT] })).status);
    expect(statuses.length).toBe(150);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 201 || s === 429)).toBe(true);
    expect(Object.keys(store.read().clients).length).toBeLessThanOrEqual(110);
  });
});
