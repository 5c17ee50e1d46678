// Every tool, called over MCP with a required field missing and with each field of the wrong
// type, answers as every failure does: a tool result `Error (invalid_input): TOOL: FIELD: ...`
// with a `Hint:` naming the field, never the SDK's raw validation text.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOn } from '../support/both-databases.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** A value no schema of this type accepts. */
function wrongValueFor(schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum) return 12345;
  switch (type) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not a list';
    case 'object':
      return 'not an object';
    default:
      return undefined; // anything goes (free JSON)
  }
}

describeOn('pglite', 'tool arguments are checked by the brain, with its error shape', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  let tools: { name: string; inputSchema: JsonSchema }[];

  beforeAll(async () => {
    // Some hundred calls in a row: more than the per-session rate limit lets through.
    server = await startTestServer(brain(), 'homelab', { rateLimit: { perSecond: 1000, burst: 1000 } });
    client = await connectClient(server.url);
    tools = (await client.listTools()).tools as typeof tools;
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('a missing required field is named, for every tool that has one', async () => {
    const withRequired = tools.filter((t) => (t.inputSchema.required ?? []).length > 0);
    expect(withRequired.length).toBeGreaterThanOrEqual(8);
    for (const tool of withRequired) {
      const r = await client.callTool({ name: tool.name, arguments: {} });
      const t = text(r);
      expect(r.isError, `${tool.name}: ${t}`).toBe(true);
      const first = tool.inputSchema.required![0]!;
      expect(t, tool.name).toMatch(new RegExp(`^Error \\(invalid_input\\): ${tool.name}: .*\\b${first}: is required \\(`));
      expect(t, tool.name).toMatch(new RegExp(`\\nHint: Fix .*"${first}"`));
      expect(t).not.toContain('Input validation error');
    }
  });

  it('a field of the wrong type is named with what it must be, for every field of every tool', async () => {
    let checked = 0;
    for (const tool of tools) {
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        const wrong = wrongValueFor(schema);
        if (wrong === undefined) continue;
        const r = await client.callTool({ name: tool.name, arguments: { [field]: wrong } });
        const t = text(r);
        expect(r.isError, `${tool.name}.${field}: ${t}`).toBe(true);
        expect(t, `${tool.name}.${field}`).toMatch(new RegExp(`^Error \\(invalid_input\\): ${tool.name}: `));
        expect(t, `${tool.name}.${field}`).toMatch(new RegExp(`\\b${field}: must be `));
        expect(t, `${tool.name}.${field}`).toMatch(new RegExp(`\\nHint: Fix .*"${field}"`));
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(40);
  });

  it('a good call still works, and a wrong type inside a list names its position', async () => {
    const ok = await client.callTool({ name: 'remember', arguments: { kind: 'tool', title: 'restic', body: 'Backups.' } });
    expect(ok.isError, text(ok)).toBeFalsy();
    const r = await client.callTool({ name: 'remember', arguments: { kind: 'tool', title: 'borg', tags: ['backup', 7] } });
    expect(text(r)).toMatch(/^Error \(invalid_input\): remember: tags\[1\]: must be a string, not number\nHint: Fix "tags\[1\]"/);
  });

  it('names fields as the tool spells them, in plain English', async () => {
    const date = await client.callTool({ name: 'record', arguments: { kind: 'deploy', date: 'yesterday', title: 'Deployed' } });
    expect(text(date)).toMatch(/^Error \(invalid_input\): record: date: use YYYY-MM-DD .*\nHint: Fix "date"/);
    expect(text(date)).not.toContain('occurredAt');
    const kind = await client.callTool({ name: 'remember', arguments: { kind: 'deploy', title: 'Deployed' } });
    expect(text(kind)).toMatch(/^Error \(wrong_kind_class\): "deploy" is an episode kind, not a topic kind\n/);
  });
});
