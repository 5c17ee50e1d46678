// MCP sessions against an unauthenticated flood (issue 15): every loopback client shares
// 127.0.0.1, so a cap on sessions must not become a lock-out. A flood of initialize calls
// leaves the sessions that already work alone, and a new client gets in; the rate limit
// counts the calls of a JSON-RPC batch, not the request that carries them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { connectClient, startTestServer } from '../support/mcp.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
};
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  await res.text();
  return { status: res.status, sid: res.headers.get('mcp-session-id') };
}

describe('[pglite] MCP sessions under an initialize flood', () => {
  let brain: BrainUnderTest;
  let server: RunningSubjectServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    brain = await embeddedBrain();
    // The server as `brain up` runs it: default caps, default rate limit.
    server = await startTestServer(brain, 'homelab');
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.close();
    await brain?.close();
  });

  it('a flood of 500 initialize calls leaves an existing session working and a new client able to connect within a minute', async () => {
    const existing = await connectClient(server.url);
    clients.push(existing);
    expect((await existing.listTools()).tools.length).toBeGreaterThan(5);

    // The flood: 500 initialize calls, 20 at a time, never closed; a 429 is waited out and
    // retried, as a determined client would (the rate limit alone does not stop it).
    const statuses: Record<number, number> = {};
    let sent = 0;
    let peak = 0;
    const flooder = async () => {
      while (sent < 500) {
        sent++;
        for (;;) {
          const r = await post(server.url, INIT);
          if (r.status === 429) {
            await sleep(100);
            continue;
          }
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          peak = Math.max(peak, server.app.mcpSessions.count);
          break;
        }
      }
    };
    const flood = Promise.all(Array.from({ length: 20 }, flooder));
    // The existing session keeps working during the flood (its own rate-limit bucket, and it
    // is never the one closed to make room).
    await sleep(500);
    expect((await existing.listTools()).tools.length).toBeGreaterThan(5);
    await flood;
    expect(Object.values(statuses).reduce((a, b) => a + b, 0)).toBe(500);
    expect(peak).toBeLessThanOrEqual(100);
    expect((await existing.listTools()).tools.length).toBeGreaterThan(5);
    await existing.ping();

    // A new client connects within a minute (at once, in fact: a flood session makes room).
    const started = Date.now();
    let fresh: Client | undefined;
    let lastError: unknown;
    while (!fresh && Date.now() - started < 60_000) {
      try {
        fresh = await connectClient(server.url);
      } catch (error) {
        lastError = error;
        await sleep(1_000);
      }
    }
    expect(fresh, `no new session within a minute: ${String(lastError)}; flood answers ${JSON.stringify(statuses)}`).toBeDefined();
    clients.push(fresh!);
    expect((await fresh!.listTools()).tools.length).toBeGreaterThan(5);
    expect((await existing.listTools()).tools.length).toBeGreaterThan(5);
  }, 240_000);

  it('a JSON-RPC batch costs one rate-limit token per call', async () => {
    const limited = await startTestServer(brain, 'book', { rateLimit: { perSecond: 0.5, burst: 10 } });
    try {
      const init = await post(limited.url, INIT);
      expect(init.status).toBe(200);
      const h = { 'mcp-session-id': init.sid!, 'mcp-protocol-version': '2025-06-18' };
      await post(limited.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
      const batch = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'ping' }));
      // One token used so far (initialize counts against the address); a batch of 6 fits the
      // bucket of 10, the next batch of 6 does not.
      expect((await post(limited.url, batch(6, 10), h)).status).not.toBe(429);
      expect((await post(limited.url, batch(6, 20), h)).status).toBe(429);
      // A batch larger than the whole bucket can never pass: it is refused as such.
      expect((await post(limited.url, batch(100, 100), h)).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});
