// A real subject server on a free loopback port, and a real MCP client (the v1 SDK, the
// one most clients ship) speaking Streamable HTTP to it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { startSubjectServer, type RunningSubjectServer, type SubjectServerOptions } from '../../services/runtime/subject-server.js';
import type { BrainUnderTest } from './brains.js';

export async function startTestServer(brain: BrainUnderTest, subject: string, opts: Partial<SubjectServerOptions> = {}): Promise<RunningSubjectServer> {
  const s = brain.config.subjects.find((x) => x.name === subject)!;
  return startSubjectServer({
    subject: s,
    handle: brain.subjectDb(subject),
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: process.env.BRAIN_TEST_LOG ?? 'silent' }),
    ...opts,
  });
}

export async function connectClient(url: string, opts: { token?: string; capabilities?: Record<string, unknown> } = {}): Promise<Client> {
  const client = new Client({ name: 'brain-test', version: '1.0.0' }, { capabilities: opts.capabilities ?? {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

/** The text of a tool result. */
export function text(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}
