// Real clients against a running OAuth subject server: the v1 MCP SDK client with its OAuth
// client provider (discovery, registration, PKCE, the code exchange, refresh on expiry all
// done by the SDK), with the owner approving through the real `brain auth approve` command;
// and the MCP Inspector's CLI, given the token the flow produced as a header.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { listGrants } from '../../services/auth/approval.js';
import { OAuthAuthority } from '../../services/auth/authority.js';
import { AuthStore } from '../../services/auth/store.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { runBrain } from '../support/cli.js';
import { startTestServer, text } from '../support/mcp.js';
import { form, REDIRECT, requestIdOf, runFlow } from './oauth-client.js';

const run = promisify(execFile);
const INSPECTOR = join(PACKAGE_ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');

/** An SDK client's OAuth state, in memory; the "browser" is the test, which records where it was sent. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  sentTo: URL | undefined;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK test client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('[pglite] remote MCP clients with OAuth', () => {
  let brain: BrainUnderTest;
  let dir: string;
  let store: AuthStore;
  // Starts at the real time: `brain auth approve` runs in its own process, on the real clock.
  let clock = Date.now();
  let server: RunningSubjectServer;

  beforeAll(async () => {
    brain = await embeddedBrain();
    dir = mkdtempSync(join(tmpdir(), 'brain-oauth-clients-'));
    store = new AuthStore(dir);
    server = await startTestServer(brain, 'homelab', { oauth: new OAuthAuthority({ subject: 'homelab', store, now: () => clock }) });
  });
  afterAll(async () => {
    await server?.close();
    await brain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the SDK client connects with its OAuth provider; the owner approves with `brain auth approve`; it refreshes by itself on expiry', async () => {
    const provider = new MemoryProvider();
    const first = new Client({ name: 'sdk', version: '1' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    // The SDK discovered, registered and sent the "browser" to the authorize page, with PKCE and the resource.
    const sentTo = provider.sentTo!;
    expect(sentTo.searchParams.get('code_challenge_method')).toBe('S256');
    expect(sentTo.searchParams.get('resource')).toBe(server.url);
    const page = await (await fetch(sentTo)).text();
    const id = requestIdOf(page);
    // The owner, on the brain's machine.
    const listed = runBrain(['auth', 'approve'], { BRAIN_SECRETS_DIR: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('SDK test client');
    const approved = runBrain(['auth', 'approve', id], { BRAIN_SECRETS_DIR: dir });
    expect(approved.code, approved.stderr).toBe(0);
    const oneTime = /one-time code into the page: ([A-Z0-9]+)/.exec(approved.stdout)![1]!;
    const back = await fetch(`${new URL(server.url).origin}/authorize`, form({ request: id, code: oneTime }));
    expect(back.status).toBe(302);
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;

    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await transport.finishAuth(code);
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(transport);
    const r = await client.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'From the SDK', body: 'Connected with OAuth.' } });
    expect(r.isError).toBeFalsy();
    await client.close();

    // Past the access token's life the SDK refreshes it by itself on the 401.
    const before = provider.saved!.refresh_token;
    clock += 11 * 60_000;
    const again = new Client({ name: 'sdk', version: '1' });
    await again.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    expect(text(await again.callTool({ name: 'get', arguments: { slug: 'concept/from-the-sdk' } }))).toContain('Connected with OAuth.');
    await again.close();
    expect(provider.saved!.refresh_token).not.toBe(before);

    const grants = listGrants(store).filter((g) => g.client === 'SDK test client');
    expect(grants.length).toBe(1);
    expect(grants.every((g) => g.state === 'active' && g.scope === 'brain:read brain:write')).toBe(true);
    const outbox = await brain.admin.query<{ detail: { client?: string } }>("SELECT detail FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'concept/from-the-sdk'");
    expect(outbox.length).toBe(1);
    expect(outbox.every((o) => o.detail.client === 'SDK test client')).toBe(true);

    // And the owner ends it from the command line.
    const revoked = runBrain(['auth', 'revoke', grants[0]!.id], { BRAIN_SECRETS_DIR: dir });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(listGrants(store).find((g) => g.id === grants[0]!.id)!.state).toBe('revoked');
    const list = runBrain(['auth', 'list', '--json'], { BRAIN_SECRETS_DIR: dir });
    expect(list.code, list.stderr).toBe(0);
    const shown = (JSON.parse(list.stdout) as { grants: { id: string; client: string; state: string }[] }).grants.filter((g) => g.id === grants[0]!.id);
    expect(shown.length).toBe(1);
    expect(shown.every((g) => g.client === 'SDK test client' && g.state === 'revoked')).toBe(true);
    // Nothing secret is printed: no refresh token, no hash.
    expect(list.stdout).not.toContain(provider.saved!.refresh_token);
    expect(list.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it('the MCP Inspector CLI connects with the token the flow obtained, and without one is refused', async () => {
    const flow = await runFlow(server.url, store, { name: 'MCP Inspector', now: () => clock });
    const args = [INSPECTOR, '--cli', server.url, '--transport', 'http', '--method', 'tools/list'];
    const listed = await run(process.execPath, [...args, '--header', `Authorization: Bearer ${flow.tokens.access_token}`], { timeout: 60_000 });
    const tools = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools.length).toBeGreaterThan(5);
    expect(tools).toContain('search');
    const refused = await run(process.execPath, args, { timeout: 60_000 }).then(
      () => 'connected',
      (error: { stderr?: string; stdout?: string }) => `${error.stderr ?? ''}${error.stdout ?? ''}`,
    );
    expect(refused).not.toBe('connected');
    expect(refused).toContain('authorization required');
  });
});
