// Every tool, called over MCP with each required field missing, with each field of the wrong
// type and with each text field far too long, answers as every failure does: a tool result
// `Error (invalid_input): TOOL: FIELD: ...` with a `Hint:` naming the field as the tool spells
// it, never the SDK's raw validation text nor a service's own name for the field. The tools
// come from tools/list, and each needs a valid call below, so a new tool cannot escape.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/** A valid call of each tool: the other fields when one is left out or made wrong. */
const VALID: Record<string, Record<string, unknown>> = {
  search: { query: 'backups' },
  get: { slug: 'env/nas' },
  remember: { kind: 'tool', title: 'restic', body: 'Backups.' },
  list: {},
  record: { kind: 'note', date: '2026-11-30', title: 'Checked the disks' },
  link: { from: 'env/nas', to: 'env/nas' },
  tag: { slug: 'env/nas', tags: ['storage'] },
  ingest: { content: 'Notes from the rack.' },
  upcast: { slug: 'env/nas', reason: 'generic' },
  history: { slug: 'env/nas' },
  archive: { slug: 'env/old' },
  propose: { items: [{ type: 'topic', kind: 'tool', title: 'borg' }] },
  commit: { proposalId: '00000000-0000-4000-8000-000000000000' },
  lint: {},
};

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

/** Each field of a tool, with its path as the tool spells it and how to put a value there. */
interface Field {
  path: string;
  schema: JsonSchema;
  required: boolean;
  /** The valid call with this field set to `value` (or left out when value is undefined). */
  call(value: unknown): Record<string, unknown>;
}

/** Top-level fields, and the fields of a list of objects (propose's items[0].kind). */
function fieldsOf(tool: string, schema: JsonSchema): Field[] {
  const base = VALID[tool]!;
  const set = (obj: Record<string, unknown>, key: string, value: unknown) => {
    const copy = { ...obj };
    if (value === undefined) delete copy[key];
    else copy[key] = value;
    return copy;
  };
  const out: Field[] = [];
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const required = (schema.required ?? []).includes(name);
    out.push({ path: name, schema: s, required, call: (v) => set(base, name, v) });
    const item = s.type === 'array' ? s.items : undefined;
    if (item?.type === 'object' && Array.isArray(base[name]) && (base[name] as unknown[]).length > 0) {
      const first = (base[name] as Record<string, unknown>[])[0]!;
      for (const [inner, is] of Object.entries(item.properties ?? {})) {
        out.push({ path: `${name}[0].${inner}`, schema: is, required: (item.required ?? []).includes(inner), call: (v) => ({ ...base, [name]: [set(first, inner, v)] }) });
      }
    }
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describeOn('pglite', 'tool arguments are checked by the brain, with its error shape', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  let tools: { name: string; inputSchema: JsonSchema }[];

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'Two disks.' });
    await createTopic(homelab, { slug: 'env/old', kind: 'environment', title: 'Old box' });
    // Some hundreds of calls in a row: more than the per-session rate limit lets through.
    server = await startTestServer(brain(), 'homelab', { rateLimit: { perSecond: 1000, burst: 1000 } });
    client = await connectClient(server.url);
    tools = (await client.listTools()).tools as typeof tools;
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('every listed tool has a valid call here, and it answers in the one shape', async () => {
    expect(tools.length).toBeGreaterThanOrEqual(14);
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(VALID).sort());
    for (const tool of tools) {
      const r = await client.callTool({ name: tool.name, arguments: VALID[tool.name]! });
      const t = text(r);
      // A valid call may still fail in the domain (commit of an unknown proposal), never in another shape.
      if (r.isError) expect(t, tool.name).toMatch(/^Error \([a-z_]+\): .+\nHint: .+/s);
      expect(t, tool.name).not.toMatch(/invalid_input/);
    }
  });

  it('each required field left out is named, for every tool, lists of objects included', async () => {
    let checked = 0;
    const toolsChecked = new Set<string>();
    for (const tool of tools) {
      for (const field of fieldsOf(tool.name, tool.inputSchema).filter((f) => f.required)) {
        const r = await client.callTool({ name: tool.name, arguments: field.call(undefined) });
        const t = text(r);
        expect(r.isError, `${tool.name} ${field.path}: ${t}`).toBe(true);
        expect(t, `${tool.name} ${field.path}`).toMatch(new RegExp(`^Error \\(invalid_input\\): ${tool.name}: ${escape(field.path)}: is required \\(`));
        expect(t, `${tool.name} ${field.path}`).toMatch(new RegExp(`\\nHint: Fix "${escape(field.path)}"`));
        expect(t).not.toContain('Input validation error');
        checked++;
        toolsChecked.add(tool.name);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(19);
    // Every tool with a required field was called without it (nothing skipped silently).
    expect([...toolsChecked].sort()).toEqual(tools.filter((t) => (t.inputSchema.required ?? []).length > 0).map((t) => t.name).sort());
  });

  it('a field of the wrong type is named with what it must be, for every field of every tool', async () => {
    let checked = 0;
    const perTool = new Map<string, number>();
    for (const tool of tools) {
      for (const field of fieldsOf(tool.name, tool.inputSchema)) {
        const wrong = wrongValueFor(field.schema);
        if (wrong === undefined) continue;
        const r = await client.callTool({ name: tool.name, arguments: field.call(wrong) });
        const t = text(r);
        expect(r.isError, `${tool.name}.${field.path}: ${t}`).toBe(true);
        expect(t, `${tool.name}.${field.path}`).toMatch(new RegExp(`^Error \\(invalid_input\\): ${tool.name}: ${escape(field.path)}: must be `));
        expect(t, `${tool.name}.${field.path}`).toMatch(new RegExp(`\\nHint: Fix "${escape(field.path)}"`));
        checked++;
        perTool.set(tool.name, (perTool.get(tool.name) ?? 0) + 1);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(70);
    // No tool escapes: each has at least one typed field that was checked.
    expect([...perTool.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
  });

  it('a text far too long is refused naming the field as the tool spells it, not as a service does', async () => {
    const long = 'x'.repeat(300_001);
    let refused = 0;
    for (const tool of tools) {
      for (const field of fieldsOf(tool.name, tool.inputSchema)) {
        if (field.schema.type !== 'string' || field.schema.enum) continue;
        const r = await client.callTool({ name: tool.name, arguments: field.call(long) });
        const t = text(r);
        if (!r.isError) continue; // no limit on this field (a document may be long)
        expect(t, `${tool.name}.${field.path}`).toMatch(/^Error \([a-z_]+\): .+\nHint: .+/s);
        const named = /^Error \(invalid_input\): ([a-z]+): ([A-Za-z]\w*(?:\[\d+\])?(?:\.\w+)*): /.exec(t);
        if (!named) continue;
        expect(named[1], `${tool.name}.${field.path}: ${t.slice(0, 200)}`).toBe(tool.name);
        expect(named[2], `${tool.name}.${field.path}: ${t.slice(0, 200)}`).toBe(field.path);
        expect(t).toMatch(new RegExp(`\\nHint: .*"${escape(field.path)}"`));
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(25);
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
    const source = await client.callTool({ name: 'record', arguments: { kind: 'deploy', date: '2026-11-30', title: 'Deployed', source: 's'.repeat(301) } });
    expect(text(source)).toMatch(/^Error \(invalid_input\): record: source: .*\nHint: Fix "source"/);
    expect(text(source)).not.toContain('sourceLabel');
    const restore = await client.callTool({ name: 'history', arguments: { slug: 'env/nas', restore: -1 } });
    expect(text(restore)).toMatch(/^Error \(invalid_input\): history: restore: .*\nHint: Fix "restore"/);
    const detail = await client.callTool({ name: 'propose', arguments: { items: [{ type: 'episode', kind: 'note', date: '2026-11-30', title: 'x', body: 'd'.repeat(100_001) }] } });
    expect(text(detail)).toMatch(/^Error \(invalid_input\): propose: items\[0\]\.body: .*\nHint: Fix "items\[0\]\.body"/);
    const kind = await client.callTool({ name: 'remember', arguments: { kind: 'deploy', title: 'Deployed' } });
    expect(text(kind)).toMatch(/^Error \(wrong_kind_class\): "deploy" is an episode kind, not a topic kind\n/);
  });
});
