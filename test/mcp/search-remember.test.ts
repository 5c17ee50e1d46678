// search and remember over MCP, with the embedder the server would really run: none
// (keyword only, said so), and the built-in offline embedder on PGlite, where the
// subject's worker embeds in the background and a paraphrase finds its card.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOn, describeOnBothDatabases } from '../support/both-databases.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

describeOnBothDatabases('search and remember over MCP, keyword only', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('remember searches before add: a new island card, then an update of the same card', async () => {
    const first = text(await client.callTool({ name: 'remember', arguments: { kind: 'methodology', title: 'Postgres backups', body: 'pg_dump nightly to the NAS.' } }));
    expect(first).toMatch(/Created \(nothing related found\): homelab:methodology\/postgres-backups/);
    const again = text(await client.callTool({ name: 'remember', arguments: { kind: 'methodology', title: 'Backups of Postgres', body: 'Test restores monthly.' } }));
    expect(again).toMatch(/Updated: homelab:methodology\/postgres-backups/);
    const [card] = await brain().admin.query<{ body: string }>("SELECT body FROM homelab.topics WHERE slug = 'methodology/postgres-backups'");
    expect(card!.body).toBe('pg_dump nightly to the NAS.\n\nTest restores monthly.');
    const decision = await brain().admin.query<{ detail: { decision: string } }>("SELECT detail FROM homelab.outbox WHERE app_operation = 'remember' ORDER BY id");
    expect(decision.map((d) => d.detail.decision)).toEqual(['created-island', 'updated']);
  });

  it('search finds by words, labels the subject and says when meaning is not available', async () => {
    const r = text(await client.callTool({ name: 'search', arguments: { query: 'how do we back up postgres?' } }));
    expect(r).toMatch(/^- homelab:methodology\/postgres-backups · methodology · .* · relevance 0\.\d\d \[keyword\]$/m);
    const sem = text(await client.callTool({ name: 'search', arguments: { query: 'database snapshots', mode: 'semantic' } }));
    expect(sem).toMatch(/Note: .*(semantic|embedd)/i);
  });

  it('propose uses the same search before add: a reworded duplicate is a ~ update', async () => {
    const r = text(await client.callTool({ name: 'propose', arguments: { items: [{ type: 'topic', kind: 'methodology', title: 'Backups for Postgres', body: 'Keep 7 dailies.' }] } }));
    expect(r).toMatch(/\[1\] ~ topic\s+methodology\s+"Postgres backups"/);
  });
});

describeOn('pglite', 'search over MCP with the offline embedder', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer(brain(), 'homelab', { embedder: { embedder: new OfflineEmbedder(), reason: 'offline embedder (test)' } });
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('embeds in the background and finds a card by meaning', { timeout: 120_000 }, async () => {
    await client.callTool({ name: 'remember', arguments: { kind: 'methodology', title: 'Nightly database dumps', body: 'Every night at 2am pg_dump writes a compressed copy of the Postgres database to the NAS.' } });
    await client.callTool({ name: 'remember', arguments: { kind: 'concept', title: 'Sourdough starter', body: 'Feed the starter with flour and water every day.' } });
    // The worker's pending count starts at 0 before its first look, so wait on the database:
    // both cards embedded (their state recorded) with the offline model.
    const embedded = async () => (await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.embedding_state WHERE model = 'use-lite-512'"))[0]!.n;
    for (let i = 0; i < 200 && (await embedded()) < 2; i++) await new Promise((r) => setTimeout(r, 250));
    expect(await embedded()).toBe(2);
    const ready = (await (await fetch(server.url.replace('/mcp', '/readyz'))).json()) as { embedder: { pending: number; state: string } };
    expect(ready.embedder.state).toBe('ok');
    const r = text(await client.callTool({ name: 'search', arguments: { query: 'scheduled backup of our data', mode: 'semantic', limit: 1 } }));
    expect(r).toMatch(/^- homelab:methodology\/nightly-database-dumps · .* \[vector\]$/m);
  });
});
