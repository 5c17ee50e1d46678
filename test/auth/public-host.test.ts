// The tunnel's public name is accepted as Host for its own subject only, and the discovery
// documents then name the public https origin; BRAIN_PUBLIC_URLS is refused for a subject
// without OAuth (it would be open to anyone who finds the name) and anything but an https origin.
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { OAuthAuthority } from '../../services/auth/authority.js';
import { AuthStore } from '../../services/auth/store.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { startTestServer } from '../support/mcp.js';

const PUBLIC = 'homelab-brain.example.ts.net';

/** A GET with a chosen Host header (fetch will not set one). */
function get(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const port = new URL(url).port;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('[pglite] the public name of a tunnelled subject', () => {
  let brain: BrainUnderTest;
  let dir: string;
  let homelab: RunningSubjectServer;
  let novel: RunningSubjectServer;

  beforeAll(async () => {
    brain = await embeddedBrain();
    dir = mkdtempSync(join(tmpdir(), 'brain-oauth-host-'));
    const store = new AuthStore(dir);
    homelab = await startTestServer(brain, 'homelab', { oauth: new OAuthAuthority({ subject: 'homelab', store, publicUrl: `https://${PUBLIC}` }) });
    novel = await startTestServer(brain, 'novel', { oauth: new OAuthAuthority({ subject: 'novel', store }) });
  });
  afterAll(async () => {
    await homelab?.close();
    await novel?.close();
    await brain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('homelab answers its public name with https metadata; novel refuses that name', async () => {
    const prm = await get(homelab.url, '/.well-known/oauth-protected-resource/mcp', PUBLIC);
    expect(prm.status).toBe(200);
    expect(JSON.parse(prm.body)).toMatchObject({ resource: `https://${PUBLIC}/mcp`, authorization_servers: [`https://${PUBLIC}`] });
    const as = JSON.parse((await get(homelab.url, '/.well-known/oauth-authorization-server', PUBLIC)).body) as Record<string, string>;
    expect(as.issuer).toBe(`https://${PUBLIC}`);
    expect(as.token_endpoint).toBe(`https://${PUBLIC}/token`);
    expect((await get(novel.url, '/.well-known/oauth-protected-resource/mcp', PUBLIC)).status).toBe(403);
    expect((await get(novel.url, '/healthz', PUBLIC)).status).toBe(403);
    // Loopback still answers both, with its own origin.
    const local = await get(novel.url, '/.well-known/oauth-protected-resource', `127.0.0.1:${new URL(novel.url).port}`);
    expect(JSON.parse(local.body).resource).toBe(novel.url);
  });

  it('BRAIN_PUBLIC_URLS needs OAuth for the subject and an https origin', () => {
    const ok = loadRuntimeConfig({ BRAIN_OAUTH_SUBJECTS: 'homelab, novel', BRAIN_PUBLIC_URLS: `homelab=https://${PUBLIC}` });
    expect(ok.oauthSubjects).toEqual(['homelab', 'novel']);
    expect(ok.publicUrls).toEqual({ homelab: `https://${PUBLIC}` });
    expect(ok.oauthAccessMinutes).toBe(10);
    expect(() => loadRuntimeConfig({ BRAIN_PUBLIC_URLS: `homelab=https://${PUBLIC}` })).toThrow(/not in BRAIN_OAUTH_SUBJECTS/);
    expect(() => loadRuntimeConfig({ BRAIN_OAUTH_SUBJECTS: 'homelab', BRAIN_PUBLIC_URLS: `homelab=http://${PUBLIC}` })).toThrow(/https/);
    expect(() => loadRuntimeConfig({ BRAIN_OAUTH_SUBJECTS: 'homelab', BRAIN_PUBLIC_URLS: `homelab=https://${PUBLIC}/brain` })).toThrow(/no path/);
    expect(() => loadRuntimeConfig({ BRAIN_OAUTH_SUBJECTS: 'Home Lab' })).toThrow(/BRAIN_OAUTH_SUBJECTS/);
    expect(loadRuntimeConfig({}).oauthSubjects).toEqual([]);
  });
});
