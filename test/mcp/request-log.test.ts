// What the MCP server's log says about requests (services/runtime/request-log.ts): at info, a
// call that went well writes nothing per request (sessions opened are still logged), a refused
// request writes one line naming it and its status; at debug, both of Fastify's lines are back.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { connectClient, startTestServer } from '../support/mcp.js';

interface Line {
  level: number;
  msg: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
}

function capturingLogger(level: string): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

const INFO = 30;

describe('[pglite] the MCP server request log', () => {
  let brain: BrainUnderTest;
  beforeAll(async () => {
    brain = await embeddedBrain();
  });
  afterAll(async () => {
    await brain?.close();
  });

  it('at info: no line per good request, one line per refused request', async () => {
    const { logger, lines } = capturingLogger('info');
    const server = await startTestServer(brain, 'homelab', { logger });
    try {
      const client = await connectClient(server.url);
      await client.ping();
      await client.listTools();
      await client.callTool({ name: 'list', arguments: {} });
      await client.close();
      const refused = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(refused.status).toBe(404);
      await new Promise((r) => setTimeout(r, 50)); // pino's destination is written asynchronously
    } finally {
      await server.close();
    }
    const msgs = lines.map((l) => l.msg);
    expect(msgs).toContain('session opened');
    expect(msgs.filter((m) => m === 'incoming request' || m === 'request completed')).toEqual([]);
    const refusals = lines.filter((l) => l.msg === 'request refused');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.level).toBe(INFO);
    expect(refusals[0]!.req).toMatchObject({ method: 'POST', url: '/mcp' });
    expect(refusals[0]!.res?.statusCode).toBe(404);
  });

  it("at debug: Fastify's incoming and completed lines for every request", async () => {
    const { logger, lines } = capturingLogger('debug');
    const server = await startTestServer(brain, 'homelab', { logger });
    try {
      const client = await connectClient(server.url);
      await client.ping();
      await client.close();
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await server.close();
    }
    // initialize, the initialized notification and the ping; the client's GET stream is still
    // open when the server closes, so it is logged coming in and never completed.
    const incoming = lines.filter((l) => l.msg === 'incoming request');
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(incoming.map((l) => l.req!.method).sort()).toEqual(['GET', 'POST', 'POST', 'POST']);
    expect(completed.map((l) => l.res!.statusCode).sort()).toEqual([200, 200, 202]);
    expect(completed.every((l) => l.level < INFO)).toBe(true);
  });
});
