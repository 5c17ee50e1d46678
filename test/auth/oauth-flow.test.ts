// Issue 19's acceptance, over real HTTP against the built-in authorization server of two
// subject servers (homelab, novel) sharing one owner's store, on both databases: discovery,
// registration, code + PKCE, token, tool call, refresh (rotating), expiry (an injected clock),
// revocation, wrong audience, wrong scope, and a read token that reaches Postgres and still
// cannot write there. Each outcome is then checked in the database directly.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { z } from 'zod';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listGrants, revoke } from '../../services/auth/approval.js';
import { OAuthAuthority } from '../../services/auth/authority.js';
import { AuthStore } from '../../services/auth/store.js';
import type { AnyBrainTool } from '../../services/mcp/tools/types.js';
import { READ_ONLY } from '../../services/mcp/tools/types.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';
import { postMcp, refresh, runFlow } from './oauth-client.js';

/**
 * A tool that claims to be read-only and writes anyway: the scope check lets a read token
 * call it, so only Postgres stands between it and the table. It reports what Postgres said.
 */
const mislabelledWriter: AnyBrainTool = {
  name: 'sneaky_write',
  description: 'test only: writes while annotated read-only',
  inputSchema: () => z.object({}),
  annotations: READ_ONLY,
  async run(_args, deps) {
    const mode = await sql<{ transaction_read_only: string }>`SHOW transaction_read_only`.execute(deps.ctx.db);
    try {
      await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('concept/sneaky', 'concept', 'Sneaky')`.execute(deps.ctx.db);
      return { content: [{ type: 'text', text: `read_only=${mode.rows[0]!.transaction_read_only} written` }] };
    } catch (error) {
      return { content: [{ type: 'text', text: `read_only=${mode.rows[0]!.transaction_read_only} refused ${(error as { code?: string }).code}` }] };
    }
  },
};

describeOnBothDatabases('OAuth for remote clients', (brain) => {
  let dir: string;
  let store: AuthStore;
  let clock = Date.parse('2026-12-01T00:00:00Z');
  const now = () => clock;
  let homelab: RunningSubjectServer;
  let novel: RunningSubjectServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brain-oauth-'));
    store = new AuthStore(dir);
    const authority = (subject: string) => new OAuthAuthority({ subject, store, now });
    homelab = await startTestServer(brain(), 'homelab', { oauth: authority('homelab'), extraTools: [mislabelledWriter] });
    novel = await startTestServer(brain(), 'novel', { oauth: authority('novel') });
  });
  afterAll(async () => {
    await homelab?.close();
    await novel?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async (where: string) => (await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.topics WHERE ${where}`))[0]!.n;

  it('discovery, registration, code with PKCE, token, tool call: the write is in the outbox with the client name', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'Claude on the phone', now });
    expect(flow.tokens.token_type).toBe('Bearer');
    expect(flow.tokens.scope).toBe('brain:read brain:write');
    expect(flow.tokens.expires_in).toBe(600);
    const client = await connectClient(homelab.url, { token: flow.tokens.access_token });
    const r = await client.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'Remote note', body: 'Written from the phone.' } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toMatch(/homelab:concept\/remote-note/);
    await client.close();
    const rows = await brain().admin.query<{ detail: { client?: string }; actor: string; app_operation: string }>(
      "SELECT detail, actor, app_operation FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'concept/remote-note'",
    );
    expect(rows.length).toBe(1);
    expect(rows.every((o) => o.detail.client === 'Claude on the phone')).toBe(true);
    // Only hashes are stored, in a file only the owner can read.
    const file = JSON.stringify(store.read());
    expect(file).not.toContain(flow.tokens.refresh_token);
    expect(file).not.toContain(flow.tokens.access_token);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('the 401 names the protected-resource metadata; a foreign Host is refused before any of it', async () => {
    const r = await postMcp(homelab.url);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL(homelab.url).origin}/.well-known/oauth-protected-resource/mcp", scope="brain:read brain:write"`,
    );
    const bad = await postMcp(homelab.url, 'not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refresh rotates the refresh token; a spent one presented again revokes the grant', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'rotating client', now });
    const first = await refresh(flow);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(flow.tokens.refresh_token);
    const client = await connectClient(homelab.url, { token: first.body.access_token });
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    await client.close();
    // The old refresh token again: a replay; the grant goes, and its newest tokens with it.
    const replay = await refresh(flow);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refresh(flow, first.body.refresh_token)).status).toBe(400);
    expect((await postMcp(homelab.url, first.body.access_token)).status).toBe(401);
    const grants = listGrants(store).filter((g) => g.clientId === flow.clientId);
    expect(grants.length).toBe(1);
    expect(grants.every((g) => g.state === 'revoked')).toBe(true);
  });

  it('expiry: past its lifetime an access token gets 401; a refresh gives a working one', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'expiring client', now });
    expect((await postMcp(homelab.url, flow.tokens.access_token)).status).toBe(200);
    clock += 601_000;
    const expired = await postMcp(homelab.url, flow.tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('expired');
    const renewed = await refresh(flow);
    expect(renewed.status).toBe(200);
    expect((await postMcp(homelab.url, renewed.body.access_token)).status).toBe(200);
  });

  it('revocation: `brain auth revoke` stops the access token and the refresh token at once', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'revoked client', now });
    const client = await connectClient(homelab.url, { token: flow.tokens.access_token });
    expect(revoke(store, flow.clientId, now())).toBe(1);
    // The open session too: its next request carries the revoked token.
    await expect(client.listTools()).rejects.toThrow();
    await client.close();
    expect((await postMcp(homelab.url, flow.tokens.access_token)).status).toBe(401);
    expect((await refresh(flow)).body.error).toBe('invalid_grant');
  });

  it('wrong audience: a token for homelab is refused by novel, and novel will not issue one for homelab', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'homelab only', now });
    const r = await postMcp(novel.url, flow.tokens.access_token);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('another resource');
    // Its refresh token is homelab's too.
    const viaNovel = await fetch(flow.tokenEndpoint.replace(new URL(homelab.url).port, new URL(novel.url).port), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token, client_id: flow.clientId }).toString(),
    });
    expect(viaNovel.status).toBe(400);
    // An authorization request at novel for homelab's resource is sent back with invalid_target.
    const asked = await fetch(`${new URL(novel.url).origin}/authorize?${new URLSearchParams({ response_type: 'code', client_id: flow.clientId, redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: homelab.url })}`, { redirect: 'manual' });
    expect(asked.status).toBe(302);
    expect(new URL(asked.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('PKCE: S256 only, and a wrong verifier gets no token', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'pkce client', now });
    const plain = await fetch(`${new URL(homelab.url).origin}/authorize?${new URLSearchParams({ response_type: 'code', client_id: flow.clientId, redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: 'y'.repeat(43), code_challenge_method: 'plain' })}`, { redirect: 'manual' });
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const missing = await fetch(`${new URL(homelab.url).origin}/authorize?${new URLSearchParams({ response_type: 'code', client_id: flow.clientId, redirect_uri: 'http://127.0.0.1:9/callback' })}`, { redirect: 'manual' });
    expect(new URL(missing.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('wrong scope: a read token may search but remember is refused as a tool error naming brain:write; nothing written', async () => {
    const before = await count("slug = 'concept/read-only-attempt'");
    const flow = await runFlow(homelab.url, store, { name: 'read-only client', readOnly: true, now });
    expect(flow.tokens.scope).toBe('brain:read');
    const client = await connectClient(homelab.url, { token: flow.tokens.access_token });
    // Every read-only tool works inside its read-only transactions.
    for (const [name, args] of [['search', { query: 'remote note' }], ['get', { slug: 'concept/remote-note' }], ['list', {}]] as const) {
      const read = await client.callTool({ name, arguments: args });
      expect(read.isError, `${name}: ${text(read)}`).toBeFalsy();
    }
    expect(text(await client.callTool({ name: 'get', arguments: { slug: 'concept/remote-note' } }))).toContain('Written from the phone.');
    expect((await client.listResources()).resources.length).toBeGreaterThanOrEqual(0);
    const r = await client.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'Read only attempt', body: 'x' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('insufficient_scope');
    expect(text(r)).toContain('brain:write');
    expect(text(r)).toMatch(/Hint: /);
    await client.close();
    expect(before).toBe(0);
    expect(await count("slug = 'concept/read-only-attempt'")).toBe(0);
  });

  it('a read token that reaches Postgres still cannot write: the transaction is read-only and Postgres refuses (25006)', async () => {
    const flow = await runFlow(homelab.url, store, { name: 'read-only client 2', readOnly: true, now });
    const client = await connectClient(homelab.url, { token: flow.tokens.access_token });
    const r = await client.callTool({ name: 'sneaky_write', arguments: {} });
    expect(text(r)).toBe('read_only=on refused 25006');
    await client.close();
    expect(await count("slug = 'concept/sneaky'")).toBe(0);
    // The same tool with a write token does write: the refusal was the read-only transaction's.
    const writer = await runFlow(homelab.url, store, { name: 'writer', now });
    const w = await connectClient(homelab.url, { token: writer.tokens.access_token });
    expect(text(await w.callTool({ name: 'sneaky_write', arguments: {} }))).toBe('read_only=off written');
    await w.close();
    expect(await count("slug = 'concept/sneaky'")).toBe(1);
    const audit = await brain().admin.query<{ detail: { client?: string } }>("SELECT detail FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'concept/sneaky'");
    expect(audit.length).toBe(1);
    expect(audit.every((o) => o.detail.client === 'writer')).toBe(true);
  });

  it("a session is bound to the grant that opened it: another client's token cannot drive it", async () => {
    const a = await runFlow(homelab.url, store, { name: 'client a', now });
    const b = await runFlow(homelab.url, store, { name: 'client b', now });
    const init = await postMcp(homelab.url, a.tokens.access_token);
    const sid = init.headers.get('mcp-session-id')!;
    const hijack = await postMcp(homelab.url, b.tokens.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect(hijack.status).toBe(403);
  });
});
