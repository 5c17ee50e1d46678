// Isolation through the MCP surface: the homelab server, fed crafted inputs, never
// returns or changes another project's data and never deletes from personal.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

const SECRET = 'novel-secret-marker-7731';
const CRAFTED_STRINGS = [
  'novel',
  'novel/chapter-1',
  'novel:chapter-1',
  '../novel/chapter-1',
  'chapter-1',
  "x'; SELECT * FROM novel.topics; --",
  'x"; SET search_path = novel; --',
  'set_config(\'search_path\', \'novel\', false)',
  'ｎｏｖｅｌ/chapter-1',
  'novel\u0000/chapter-1',
  'novel\u200b/chapter-1',
  'NOVEL/CHAPTER-1',
  'personal/../novel/chapter-1',
  '%6eovel/chapter-1',
  'x'.repeat(300),
];

describeOnBothDatabases('isolation through MCP', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  beforeAll(async () => {
    await brain().admin.query(`INSERT INTO novel.topics (slug, kind, title, body) VALUES ('chapter-1', 'chapter-summary', 'Chapter 1', $1)`, [SECRET]);
    await brain().admin.query(`INSERT INTO novel.topics (slug, kind, title, body) VALUES ('novel/chapter-1', 'chapter-summary', 'Chapter 1b', $1)`, [SECRET]);
    await brain().admin.query(`INSERT INTO personal.topics (slug, kind, title) VALUES ('keep/me', 'concept', 'Keep me')`);
    await brain().admin.query(`INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/nas', 'environment', 'NAS')`);
    // The crafted calls aim at env/nas (and may archive or merge it); health is read from a card they never name.
    await brain().admin.query(`INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/health', 'environment', 'Health')`);
    server = await startTestServer(brain(), 'homelab', { rateLimit: { perSecond: 10_000, burst: 10_000 } });
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  // Over 1,000 calls (every parameter of 14 tools, 15 values each): 60 s was too short for PGlite
  // on a busy 2-core machine once archive joined the tools.
  it('crafted values in every parameter of every tool never reach novel and never delete or archive in personal', { timeout: 240_000 }, async () => {
    const { tools } = await client.listTools();
    const before = await brain().admin.query<{ n: number }>('SELECT (SELECT count(*) FROM personal.topics)::int AS n');
    const novelBefore = await brain().admin.query('SELECT slug, title, body, updated_at FROM novel.topics ORDER BY slug');
    let calls = 0;
    for (const tool of tools) {
      const props = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      for (const crafted of CRAFTED_STRINGS) {
        for (const prop of props) {
          const args: Record<string, unknown> = { slug: 'env/nas', from: 'env/nas', to: crafted, kind: 'note', date: '2026-11-01', title: 't', tags: ['t'], content: 'c', source: 's', data: {}, reason: 'r', versionId: 1 };
          args[prop] = prop === 'tags' || prop === 'include' || prop === 'topics' ? [crafted] : crafted;
          const r = await client.callTool({ name: tool.name, arguments: args });
          calls++;
          expect(text(r), `${tool.name}.${prop} = ${JSON.stringify(crafted)}`).not.toContain(SECRET);
          expect(text(r)).not.toMatch(/Chapter 1b?\b/);
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
    const resource = await client.readResource({ uri: 'brain://topics/novel/chapter-1' }).catch((e: Error) => e);
    expect(JSON.stringify(resource)).not.toContain(SECRET);
    const index = await client.readResource({ uri: 'brain://index' });
    expect(JSON.stringify(index)).not.toContain('chapter-1');
    expect(await brain().admin.query('SELECT slug, title, body, updated_at FROM novel.topics ORDER BY slug')).toEqual(novelBefore);
    const after = await brain().admin.query<{ n: number }>('SELECT (SELECT count(*) FROM personal.topics)::int AS n');
    expect(after[0]!.n).toBeGreaterThanOrEqual(before[0]!.n);
    expect(await brain().admin.query("SELECT 1 FROM personal.topics WHERE slug = 'keep/me'")).toHaveLength(1);
    const deletes = await brain().admin.query("SELECT 1 FROM personal.outbox WHERE operation = 'DELETE'");
    expect(deletes).toEqual([]);
    expect(await brain().admin.query('SELECT slug FROM personal.topics WHERE archived_at IS NOT NULL OR merged_into IS NOT NULL')).toEqual([]);
  });

  it('huge inputs are refused cleanly and the server stays healthy', async () => {
    const r = await client.callTool({ name: 'get', arguments: { slug: 'y'.repeat(100_000) } });
    expect(r.isError).toBe(true);
    const big = await client.callTool({ name: 'record', arguments: { kind: 'note', date: '2026-11-01', title: 'x'.repeat(10_000) } });
    expect(big.isError).toBe(true);
    expect((await client.callTool({ name: 'get', arguments: { slug: 'env/health' } })).isError).toBeFalsy();
  });
});
