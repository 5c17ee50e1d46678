// Bad input over MCP (found by a fuzz run): NUL characters, lone surrogates, absurdly deep
// JSON and impossible dates are answered as invalid_input naming the field, never as an
// internal error (retrying never helps), and nothing is written.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

const TABLES = ['topics', 'episodes', 'episode_topics', 'documents', 'raw_data', 'links', 'topic_tags', 'proposals', 'outbox', 'versions'];

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const NUL = 'bad\u0000text';
const LONE = 'half \uD800 a pair';

/** [tool, arguments, the field the error must name] */
const CASES: [string, Record<string, unknown>, string][] = [
  ['remember', { kind: 'methodology', title: NUL }, 'title'],
  ['remember', { kind: 'methodology', title: 'Fine', body: NUL }, 'body'],
  ['remember', { kind: 'methodology', title: 'Fine', summary: NUL }, 'summary'],
  ['remember', { kind: 'methodology', title: 'Fine', tags: ['ok', NUL] }, 'tags[1]'],
  ['remember', { kind: 'methodology', title: 'Fine', slug: NUL }, 'slug'],
  ['remember', { kind: 'methodology', title: LONE }, 'title'],
  ['propose', { items: [{ type: 'topic', kind: 'tool', title: 'A' }, { type: 'topic', kind: 'tool', title: 'B' }, { type: 'topic', kind: 'tool', title: 'C', body: NUL }] }, 'items[2].body'],
  ['propose', { items: [{ type: 'topic', kind: 'tool', title: LONE }] }, 'items[0].title'],
  ['propose', { items: [{ type: 'episode', kind: 'incident', title: 'Outage', date: '2025-02-30' }] }, 'items[0].date'],
  ['search', { query: NUL }, 'query'],
  ['search', { query: 'disks', since: '2025-13-01' }, 'since'],
  ['search', { query: 'disks', since: '0000-01-01' }, 'since'],
  ['search', { query: 'disks', until: '2025-02-30' }, 'until'],
  ['search', { query: 'disks', since: '2025-01-01T25:00:00Z' }, 'since'],
  ['record', { kind: 'incident', date: '2025-01-01', title: 'Disk', summary: NUL }, 'summary'],
  ['record', { kind: 'incident', date: '2025-02-30', title: 'Disk' }, 'date'],
  ['record', { kind: 'incident', date: '2025-13-01', title: 'Disk' }, 'date'],
  ['record', { kind: 'incident', date: '0000-01-01', title: 'Disk' }, 'date'],
  ['list', { since: '2025-13-01' }, 'since'],
  ['list', { since: '2025-02-30' }, 'since'],
  ['ingest', { content: NUL, title: 'Notes' }, 'content'],
  ['ingest', { content: 'Notes', title: LONE }, 'title'],
  ['ingest', { slug: 'env/nas', source: 'smart', data: { disks: [1, { model: NUL }] } }, 'data.disks[1].model'],
  ['ingest', { slug: 'env/nas', source: 'smart', data: { [NUL]: 1 } }, 'data'],
  ['ingest', { slug: 'env/nas', source: 'smart', data: nested(65) as Record<string, unknown> }, 'data'],
  ['ingest', { slug: 'env/nas', source: 'smart', data: { big: 'x'.repeat(1_000_001) } }, 'data'],
  ['link', { from: 'env/nas', to: 'env/nas2', context: NUL }, 'context'],
  ['tag', { slug: 'env/nas', tags: [NUL] }, 'tags[0]'],
  ['get', { slug: NUL }, 'slug'],
  ['upcast', { slug: 'env/nas', reason: NUL }, 'reason'],
  ['history', { slug: 'env/nas', reason: NUL }, 'reason'],
];

describeOnBothDatabases('bad input over MCP is invalid_input naming the field', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  const counts = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = (await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.${t}`))[0]!.n;
    return out;
  };

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'Two mirrored disks.' });
    await createTopic(homelab, { slug: 'env/nas2', kind: 'environment', title: 'NAS 2', body: 'A spare.' });
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it.each(CASES.map(([tool, args, field]) => ({ tool, args, field, label: `${tool} ${field}` })))('$label', async ({ tool, args, field }) => {
    const before = await counts();
    expect(before.topics).toBe(2);
    const r = await client.callTool({ name: tool, arguments: args });
    const t = text(r);
    expect(r.isError, t).toBe(true);
    expect(t).toMatch(/^Error \(invalid_input\): /);
    expect(t).toContain(field);
    expect(t).toMatch(/\nHint: /);
    expect(t).not.toMatch(/Try again/i);
    expect(await counts()).toEqual(before);
  });

  it('names the fix: NUL characters, a lone surrogate, the depth and a calendar date', async () => {
    const nul = text(await client.callTool({ name: 'remember', arguments: { kind: 'methodology', title: NUL } }));
    expect(nul).toContain('\\u0000');
    const lone = text(await client.callTool({ name: 'remember', arguments: { kind: 'methodology', title: LONE } }));
    expect(lone).toMatch(/surrogate/);
    const deep = text(await client.callTool({ name: 'ingest', arguments: { slug: 'env/nas', source: 'smart', data: nested(65) } }));
    expect(deep).toMatch(/nested more than 64 levels/);
    const day = text(await client.callTool({ name: 'search', arguments: { query: 'x', until: '2025-02-30' } }));
    expect(day).toMatch(/calendar date/);
  });

  it('5,000 levels of JSON, sent as raw JSON-RPC (the SDK client cannot even build it), are invalid_input too', async () => {
    const before = await counts();
    expect(before.topics).toBe(2);
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    const data = `${'{"a":'.repeat(5000)}"leaf"${'}'.repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"ingest","arguments":{"slug":"env/nas","source":"smart","data":${data}}}}`;
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body,
    });
    const raw = await res.text();
    const json = raw.trimStart().startsWith('{') ? raw : raw.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
    const r = (JSON.parse(json) as { result: { isError?: boolean; content: { text: string }[] } }).result;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/^Error \(invalid_input\): ingest: data: nested more than 64 levels deep\nHint: /);
    expect(await counts()).toEqual(before);
  });

  it('good input next to the refused values still works: real dates, deep-enough JSON, unicode', async () => {
    const r = await client.callTool({ name: 'search', arguments: { query: 'disks', since: '2024-02-29', until: '2999-12-31T23:59:59+01:00' } });
    expect(r.isError, text(r)).toBeFalsy();
    const ok = await client.callTool({ name: 'ingest', arguments: { slug: 'env/nas', source: 'smart', data: nested(40) } });
    expect(ok.isError, text(ok)).toBeFalsy();
    const emoji = await client.callTool({ name: 'record', arguments: { kind: 'incident', date: '2024-02-29', title: 'Disk 💾 swapped' } });
    expect(emoji.isError, text(emoji)).toBeFalsy();
    const rows = await brain().admin.query<{ title: string }>("SELECT title FROM homelab.episodes WHERE title LIKE 'Disk%'");
    expect(rows).toEqual([{ title: 'Disk 💾 swapped' }]);
  });
});
