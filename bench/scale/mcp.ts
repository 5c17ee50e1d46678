// The client side of the bench: the v1 `@modelcontextprotocol/sdk` client over Streamable
// HTTP, as Claude Code connects, calling the `search` tool with the arguments a model sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Query, QueryShape } from './queries.js';

/** A search mode, or "default" for a call without `mode` (what a model sends most often). */
export type BenchMode = 'default' | 'keyword' | 'semantic' | 'hybrid';

export interface SearchTiming {
  mode: BenchMode;
  /** The mode the answer says it ran as ("hybrid search:" …). */
  ranAs: string;
  phase: 'cold' | 'warm';
  shape: QueryShape;
  query: string;
  ms: number;
  hits: number;
  /** "Nothing relevant found" or "No matches". */
  nothing: boolean;
  error?: string;
}

export async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'brain-scale-bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {} });
  await client.connect(transport);
  return client;
}

export function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

/** One tool call; throws on a protocol error or a tool error (so the bench exits non-zero). */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  const text = textOf(result);
  if ((result as { isError?: boolean }).isError) throw new Error(`${name} answered an error: ${text.slice(0, 300)}`);
  return text;
}

/**
 * Every query once, in order, `paceMs` apart at most (the server allows 20 requests per second
 * per session; a model never asks faster), each timed from the call to its answer.
 */
export async function runQueries(client: Client, queries: readonly Query[], mode: BenchMode, phase: 'cold' | 'warm', paceMs = 60): Promise<SearchTiming[]> {
  const out: SearchTiming[] = [];
  for (const q of queries) {
    const began = performance.now();
    const base = { mode, phase, shape: q.shape, query: q.text };
    try {
      const result = await client.callTool({ name: 'search', arguments: mode === 'default' ? { query: q.text } : { query: q.text, mode } }, undefined, { timeout: 120_000 });
      const ms = performance.now() - began;
      const text = textOf(result);
      const ranAs = /^(\w+) search:/.exec(text)?.[1] ?? '?';
      const hits = (text.match(/^- /gm) ?? []).length;
      const nothing = /Nothing relevant found|No matches/.test(text);
      out.push({ ...base, ranAs, ms, hits, nothing, ...((result as { isError?: boolean }).isError ? { error: text.slice(0, 200) } : {}) });
    } catch (error) {
      out.push({ ...base, ranAs: '?', ms: performance.now() - began, hits: 0, nothing: false, error: String((error as Error).message ?? error).slice(0, 200) });
    }
    const wait = paceMs - (performance.now() - began);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return out;
}
