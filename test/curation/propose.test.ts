// Session close over MCP with a real SDK client: propose writes no knowledge and returns
// the preview; commit writes exactly what was accepted; a duplicate becomes a ~ update; a
// deny-listed upcast is marked and refused while the rest lands. With a client that
// declares elicitation, the human's answer (accept, decline, subset) is the only way in.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

const ITEMS = [
  { type: 'episode', kind: 'deploy', date: '2026-11-29', title: 'Rebuilt brain stack on pgvector image', topics: ['env/embeddings-host'] },
  { type: 'topic', kind: 'environment', slug: 'env/embeddings-host', title: 'embeddings host, nomic-embed-text, 768-dim', body: 'Ollama on the Mac.' },
  { type: 'topic', subject: 'personal', kind: 'design-pattern', title: 'Structural enforcement beats procedural', body: 'Make the wrong direction impossible.', reason: 'generic, no homelab specifics' },
  { type: 'topic', subject: 'personal', kind: 'tool', title: 'psycopg3', body: 'search_path is scoped per connection.', reason: 'applies to any psycopg3 work' },
  { type: 'topic', subject: 'personal', kind: 'environment', title: 'Storage box', body: 'ZFS on nas01.', reason: 'useful everywhere' },
];

async function knowledgeCounts(admin: { query<R>(q: string): Promise<R[]> }) {
  const [r] = await admin.query<{ h: number; p: number; e: number }>(
    'SELECT (SELECT count(*) FROM homelab.topics)::int AS h, (SELECT count(*) FROM personal.topics)::int AS p, (SELECT count(*) FROM homelab.episodes)::int AS e',
  );
  return r!;
}

describeOnBothDatabases('session close: propose and commit', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  beforeAll(async () => {
    const personal = await contextFor(brain(), 'personal');
    await createTopic(personal, { slug: 'tool/psycopg3', kind: 'tool', title: 'psycopg3', body: 'Python driver for Postgres.' });
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('propose returns the preview in the design\'s shape and writes no knowledge', async () => {
    const before = await knowledgeCounts(brain().admin);
    const r = await client.callTool({ name: 'propose', arguments: { items: ITEMS } });
    const preview = text(r);
    expect(preview).toMatch(/Proposed for homelab:\n\s+\[1\] \+ episode\s+deploy\s+"Rebuilt brain stack on pgvector image"/);
    expect(preview).toMatch(/\[2\] \+ topic\s+environment\s+"embeddings host, nomic-embed-text, 768-dim"/);
    expect(preview).toMatch(/Proposed for personal \(upcast\):\n\s+\[3\] \+ topic\s+design-pattern\s+"Structural enforcement beats procedural"\n\s+reason: generic, no homelab specifics/);
    expect(preview).toMatch(/\[4\] ~ topic\s+tool\s+"psycopg3"\s+\(append: search_path is scoped per connection\.\)/);
    expect(preview).toMatch(/\[5\] ✗ topic\s+environment\s+"Storage box"\n\s+reason: useful everywhere\n\s+cannot be written: .*deny-list/);
    expect(preview).not.toContain('nas01');
    expect(preview).toMatch(/5 proposed, 3 upcasts, 1 cannot be written\. Write these\? \[y\/n\/edit\]/);
    expect(await knowledgeCounts(brain().admin)).toEqual(before);
  });

  it('commit writes exactly the accepted items; the refused upcast stays out, the rest lands', async () => {
    const r = await client.callTool({ name: 'propose', arguments: { items: ITEMS } });
    const id = /Proposal ([0-9a-f-]{36})/.exec(text(r))![1]!;
    const before = await knowledgeCounts(brain().admin);
    const done = text(await client.callTool({ name: 'commit', arguments: { proposalId: id, accept: [1, 2, 4, 5] } }));
    expect(done).toMatch(/\[1\] ✓ recorded episode/);
    expect(done).toMatch(/\[2\] ✓ created homelab:env\/embeddings-host/);
    expect(done).toMatch(/\[3\] – not accepted/);
    expect(done).toMatch(/\[4\] ✓ updated personal:tool\/psycopg3/);
    expect(done).toMatch(/\[5\] ✗ /);
    expect(await knowledgeCounts(brain().admin)).toEqual({ h: before.h + 1, p: before.p, e: before.e + 1 });
    const [card] = await brain().admin.query<{ body: string }>("SELECT body FROM personal.topics WHERE slug = 'tool/psycopg3'");
    expect(card!.body).toBe('Python driver for Postgres.\n\nsearch_path is scoped per connection.');
    const reasons = await brain().admin.query<{ reason: string }>("SELECT reason FROM personal.outbox WHERE slug = 'tool/psycopg3' AND operation = 'UPDATE'");
    expect(reasons.map((x) => x.reason)).toEqual(['session-close: applies to any psycopg3 work']);
    const [ep] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.episode_topics et JOIN homelab.topics t ON t.id = et.topic_id WHERE t.slug = 'env/embeddings-host'");
    expect(ep!.n).toBe(1);
    // A settled proposal cannot be committed twice.
    const again = await client.callTool({ name: 'commit', arguments: { proposalId: id } });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain('committed');
  });

  it('a declined proposal leaves nothing but its audit record', async () => {
    const r = await client.callTool({ name: 'propose', arguments: { items: [ITEMS[1]] } });
    const id = /Proposal ([0-9a-f-]{36})/.exec(text(r))![1]!;
    const before = await knowledgeCounts(brain().admin);
    expect(text(await client.callTool({ name: 'commit', arguments: { proposalId: id, decline: true } }))).toContain('nothing was written');
    expect(await knowledgeCounts(brain().admin)).toEqual(before);
    const audit = await brain().admin.query<{ operation: string }>(`SELECT operation FROM homelab.outbox WHERE table_name = 'proposals' AND row_id = '${id}' ORDER BY id`);
    expect(audit.map((a) => a.operation)).toEqual(['INSERT', 'UPDATE']);
  });

  it('an expired proposal writes nothing', async () => {
    const r = await client.callTool({ name: 'propose', arguments: { items: [{ ...ITEMS[1], slug: 'env/late', title: 'Late card' }] } });
    const id = /Proposal ([0-9a-f-]{36})/.exec(text(r))![1]!;
    await brain().admin.query(`UPDATE homelab.proposals SET expires_at = now() - interval '1 minute' WHERE id = '${id}'`);
    const late = await client.callTool({ name: 'commit', arguments: { proposalId: id } });
    expect(late.isError).toBe(true);
    expect(text(late)).toContain('expired');
    expect(await brain().admin.query("SELECT 1 FROM homelab.topics WHERE slug = 'env/late'")).toEqual([]);
  });
});

describeOnBothDatabases('session close with elicitation', (brain) => {
  let server: RunningSubjectServer;
  let answer: (request: { params: { requestedSchema: { properties: Record<string, unknown> } } }) => { action: string; content?: Record<string, unknown> };
  let client: Client;
  let asked = 0;
  beforeAll(async () => {
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked++;
      return answer(request as never) as never;
    });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  // Distinct words per batch, so search before add sees new cards, not updates of earlier ones.
  const word: Record<string, string> = { all: 'apricot', some: 'blueberry', none: 'cherry', wait: 'damson' };
  const items = (suffix: string) => [
    { type: 'topic', kind: 'concept', slug: `concept/a-${suffix}`, title: `Alpha ${word[suffix]}`, body: `${word[suffix]} orchard` },
    { type: 'topic', kind: 'concept', slug: `concept/b-${suffix}`, title: `Beta ${word[suffix]}`, body: `${word[suffix]} market` },
  ];
  const has = async (slug: string) => (await brain().admin.query('SELECT 1 FROM homelab.topics WHERE slug = $1', [slug])).length === 1;

  it('accept writes everything the human kept', async () => {
    answer = (req) => ({ action: 'accept', content: Object.fromEntries(Object.keys(req.params.requestedSchema.properties).map((k) => [k, true])) });
    const r = await client.callTool({ name: 'propose', arguments: { items: items('all') } });
    expect(text(r)).toContain('The human answered');
    expect(await has('concept/a-all')).toBe(true);
    expect(await has('concept/b-all')).toBe(true);
  });

  it('a partial accept writes only the ticked items', async () => {
    answer = () => ({ action: 'accept', content: { item_1: false, item_2: true } });
    await client.callTool({ name: 'propose', arguments: { items: items('some') } });
    expect(await has('concept/a-some')).toBe(false);
    expect(await has('concept/b-some')).toBe(true);
  });

  it('decline writes nothing, and the model cannot commit what the human was asked', async () => {
    const before = asked;
    answer = () => ({ action: 'decline' });
    const r = await client.callTool({ name: 'propose', arguments: { items: items('none') } });
    expect(asked).toBe(before + 1);
    expect(text(r)).toContain('declined');
    expect(await has('concept/a-none')).toBe(false);
    const [row] = await brain().admin.query<{ id: string }>("SELECT id FROM homelab.proposals WHERE items::text LIKE '%a-none%'");
    const forced = await client.callTool({ name: 'commit', arguments: { proposalId: row!.id } });
    expect(forced.isError).toBe(true);
    expect(await has('concept/a-none')).toBe(false);
  });

  it('a proposal still waiting for the human cannot be committed by the model', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let seenId = '';
    // Hold the human's answer while the model tries to commit the same proposal.
    client.setRequestHandler(ElicitRequestSchema, async () => {
      const [row] = await brain().admin.query<{ id: string }>("SELECT id FROM homelab.proposals WHERE items::text LIKE '%a-wait%'");
      seenId = row!.id;
      const forced = await client.callTool({ name: 'commit', arguments: { proposalId: seenId } });
      expect(forced.isError).toBe(true);
      expect(text(forced)).toContain('only their answer settles it');
      release();
      return { action: 'decline' } as never;
    });
    await client.callTool({ name: 'propose', arguments: { items: items('wait') } });
    await held;
    expect(seenId).not.toBe('');
    expect(await has('concept/a-wait')).toBe(false);
  });
});
