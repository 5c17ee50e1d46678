// An external issuer instead of the built-in authorization server: a stand-in identity
// provider (metadata + JWKS over real HTTP, ES256 keys from node:crypto) signs the tokens; the
// subject server checks them against its published keys, for issuer, audience, expiry and scope.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthAuthority } from '../../services/auth/authority.js';
import { AuthStore } from '../../services/auth/store.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';
import { postMcp } from './oauth-client.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function jwt(claims: Record<string, unknown>, key: KeyObject, kid = 'k1', alg = 'ES256'): string {
  const body = `${b64({ alg, kid, typ: 'JWT' })}.${b64(claims)}`;
  return `${body}.${sign('sha256', Buffer.from(body), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('[pglite] an external issuer (JWKS)', () => {
  let brain: BrainUnderTest;
  let dir: string;
  let idp: Server;
  let issuer: string;
  let server: RunningSubjectServer;
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let jwksFetches = 0;
  const clock = Date.now();

  beforeAll(async () => {
    idp = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/oauth-authorization-server') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      if (req.url === '/jwks') {
        jwksFetches++;
        return res.end(JSON.stringify({ keys: [{ ...keys.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'ES256' }] }));
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    brain = await embeddedBrain();
    dir = mkdtempSync(join(tmpdir(), 'brain-oauth-ext-'));
    server = await startTestServer(brain, 'homelab', { oauth: new OAuthAuthority({ subject: 'homelab', store: new AuthStore(dir), externalIssuer: issuer, now: () => clock }) });
  });
  afterAll(async () => {
    await server?.close();
    await brain?.close();
    await new Promise((resolve) => idp.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const claims = (extra: Record<string, unknown> = {}) => ({ iss: issuer, sub: 'owner', aud: server.url, exp: Math.floor(clock / 1000) + 300, scope: 'brain:read', client_id: 'phone-app', ...extra });

  it('the metadata names the external issuer and this server has no authorization endpoints of its own', async () => {
    const origin = new URL(server.url).origin;
    const prm = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[] };
    expect(prm.authorization_servers).toEqual([issuer]);
    expect((await fetch(`${origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it("accepts the issuer's token for this resource, with its scope: a read token reads and may not remember", async () => {
    const client = await connectClient(server.url, { token: jwt(claims(), keys.privateKey) });
    expect((await client.callTool({ name: 'search', arguments: { query: 'anything' } })).isError).toBeFalsy();
    const r = await client.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'External', body: 'x' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('brain:write');
    await client.close();
    const writer = await connectClient(server.url, { token: jwt(claims({ scope: 'brain:read brain:write', client_id: 'desk-app' }), keys.privateKey) });
    expect((await writer.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'From an external token', body: 'x' } })).isError).toBeFalsy();
    await writer.close();
    const rows = await brain.admin.query<{ detail: { client?: string } }>("SELECT detail FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'concept/from-an-external-token'");
    expect(rows.length).toBe(1);
    expect(rows.every((o) => o.detail.client === 'desk-app')).toBe(true);
  });

  it('refuses another audience, another issuer, another key, an expired token and an HS256 or unsigned one', async () => {
    const cases: [string, string][] = [
      [jwt(claims({ aud: 'http://127.0.0.1:1/mcp' }), keys.privateKey), 'another resource'],
      [jwt(claims({ iss: 'https://evil.example' }), keys.privateKey), 'another server'],
      [jwt(claims(), stranger.privateKey), 'bad signature'],
      [jwt(claims(), stranger.privateKey, 'k2'), 'does not publish'],
      [jwt(claims({ exp: Math.floor(clock / 1000) - 1 }), keys.privateKey), 'expired'],
      [`${b64({ alg: 'none' })}.${b64(claims())}.`, 'not accepted'],
      [`${b64({ alg: 'HS256', kid: 'k1' })}.${b64(claims())}.c2ln`, 'not accepted'],
    ];
    for (const [token, why] of cases) {
      const r = await postMcp(server.url, token);
      expect(r.status, why).toBe(401);
      expect(r.headers.get('www-authenticate'), why).toContain(why);
    }
    // Unknown key ids do not make a request to the issuer each.
    expect(jwksFetches).toBeLessThanOrEqual(2);
  });
});
