// The HTTP face is safe on localhost: DNS rebinding refused, bearer tokens enforced,
// malformed or oversized requests answered cleanly, and the server healthy afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { connectClient, startTestServer } from '../support/mcp.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const textBody = await res.text();
  return { status: res.status, headers: res.headers, text: textBody };
}

/** Reads the JSON-RPC message out of a JSON or an SSE response. */
function message(text: string): { result?: { protocolVersion?: string }; error?: { code: number } } {
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse(data ? data.slice(6) : text);
}

describe('[pglite] HTTP safety', () => {
  let brain: BrainUnderTest;
  let server: RunningSubjectServer;
  let guarded: RunningSubjectServer;
  const TOKEN = 'test-token-0123456789abcdef';

  beforeAll(async () => {
    brain = await embeddedBrain();
    server = await startTestServer(brain, 'homelab');
    guarded = await startTestServer(brain, 'novel', { bearerToken: TOKEN });
  });
  afterAll(async () => {
    await server?.close();
    await guarded?.close();
    await brain?.close();
  });

  it('refuses a foreign Host or Origin (DNS rebinding) and accepts local ones', async () => {
    const port = new URL(server.url).port;
    // fetch will not let us set Host, so speak HTTP through node:http.
    const { request } = await import('node:http');
    const send = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...HEADERS, ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
    expect(await send({ host: 'evil.example' })).toBe(403);
    expect(await send({ host: `evil.example:${port}` })).toBe(403);
    expect(await send({ host: `localhost:${port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await send({ host: `localhost:${port}` })).toBe(200);
    expect(await send({ host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).toBe(200);
  });

  it('bearer auth: missing and wrong tokens get 401 with WWW-Authenticate; the right one works', async () => {
    const missing = await post(guarded.url, INIT);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    const wrong = await post(guarded.url, INIT, { authorization: 'Bearer not-it' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
    expect(wrong.text).not.toContain(TOKEN);
    const client = await connectClient(guarded.url, { token: TOKEN });
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    await client.close();
    // Health stays reachable for Docker and brain-up.sh.
    expect((await fetch(guarded.url.replace('/mcp', '/healthz'))).status).toBe(200);
  });

  it('negotiates protocol versions 2025-06-18 and 2025-11-25', async () => {
    for (const v of ['2025-06-18', '2025-11-25']) {
      const r = await post(server.url, { ...INIT, params: { ...INIT.params, protocolVersion: v } });
      expect(r.status).toBe(200);
      expect(message(r.text).result?.protocolVersion).toBe(v);
    }
  });

  it('malformed JSON, unknown methods, missing sessions and oversized bodies get clean errors', async () => {
    const broken = await post(server.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).error.code).toBe(-32700);
    const noSession = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    const staleSession = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'not-a-session' });
    expect(staleSession.status).toBe(404);
    const init = await post(server.url, INIT);
    const sid = init.headers.get('mcp-session-id')!;
    await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    const unknown = await post(server.url, { jsonrpc: '2.0', id: 3, method: 'brain/steal' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect(message(unknown.text).error?.code).toBe(-32601);
    const huge = await post(server.url, { ...INIT, padding: 'x'.repeat(5 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    const health = await fetch(server.url.replace('/mcp', '/readyz'));
    expect(health.status).toBe(200);
    const ready = (await health.json()) as { ready: boolean; role: string; denyListRules: number; kinds: number };
    expect(ready).toMatchObject({ ready: true, role: brain.config.subjects.find((s) => s.name === 'homelab')!.role });
    expect(ready.denyListRules).toBeGreaterThan(10);
    expect(ready.kinds).toBeGreaterThan(20);
  });

  it('rate-limits a runaway session without hurting others', async () => {
    // A limit low enough that a loaded machine cannot refill the bucket between requests
    // (at 20/s with bursts of 60, 80 pings taking over 12 ms each never hit it).
    const limited = await startTestServer(brain, 'book', { rateLimit: { perSecond: 2, burst: 10 } });
    try {
      const init = await post(limited.url, INIT);
      const sid = init.headers.get('mcp-session-id')!;
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await post(limited.url, { jsonrpc: '2.0', id: 100 + i, method: 'ping' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
        statuses.push(r.status);
      }
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(9);
      expect(statuses).toContain(429);
      const other = await connectClient(limited.url);
      expect((await other.listTools()).tools.length).toBeGreaterThan(5);
      await other.close();
    } finally {
      await limited.close();
    }
  });
});
