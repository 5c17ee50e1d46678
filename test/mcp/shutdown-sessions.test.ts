// MCP sessions end: a client's DELETE ends its session at once, an idle one expires (one
// with an open GET stream is not idle), and shutdown drains for a few seconds, then closes
// every session, so a connected client cannot hold `brain up` / `brain serve` open.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { DEFAULT_SESSION_IDLE_MS, sweepIntervalMs } from '../../services/mcp/http.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { embeddedBrain, type BrainUnderTest } from '../support/brains.js';
import { runBrain } from '../support/cli.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';
import { startBrainProcess, timeExit, scratchBrain, type ScratchBrain } from '../support/processes.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A session opened with plain HTTP: initialize and initialized, and no GET stream. */
async function rawSession(url: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
  await res.text();
  expect(res.status).toBe(200);
  const sid = res.headers.get('mcp-session-id')!;
  expect(sid).toMatch(/^[0-9a-f-]{36}$/);
  const note = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': sid }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await note.text();
  expect(note.status).toBe(202);
  return sid;
}

/** tools/list on a session: its HTTP status and body. */
async function listTools(url: string, sid: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  return { status: res.status, body: await res.text() };
}

/** A GET on a fresh connection (never a pooled one), for what a new client sees. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

function transportOf(client: Client): StreamableHTTPClientTransport {
  return client.transport as StreamableHTTPClientTransport;
}

/**
 * A client with an open GET stream and a `propose` call in flight that will not end on its
 * own: the client declares elicitation and never answers the human's question.
 */
async function clientWithCallInFlight(url: string): Promise<{ client: Client; call: Promise<unknown> }> {
  const client = await connectClient(url, { capabilities: { elicitation: {} } });
  let asked!: () => void;
  const askedHuman = new Promise<void>((resolve) => (asked = resolve));
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked();
    return new Promise<never>(() => undefined);
  });
  const call = client
    .callTool({ name: 'propose', arguments: { items: [{ type: 'topic', kind: 'concept', title: 'Shutdown drain', body: 'a card nobody confirms' }] } }, undefined, { timeout: 120_000 })
    .catch((error: unknown) => error);
  await askedHuman;
  return { client, call };
}

it('idle expiry is minutes: 10 by default, BRAIN_SESSION_IDLE_MINUTES to change it', () => {
  expect(DEFAULT_SESSION_IDLE_MS).toBe(10 * 60_000);
  expect(loadRuntimeConfig({}).sessionIdleMinutes).toBe(10);
  expect(loadRuntimeConfig({ BRAIN_SESSION_IDLE_MINUTES: '3' }).sessionIdleMinutes).toBe(3);
  expect(() => loadRuntimeConfig({ BRAIN_SESSION_IDLE_MINUTES: '0' })).toThrow(/BRAIN_SESSION_IDLE_MINUTES/);
});

describe('[pglite] MCP sessions: DELETE, idle expiry, shutdown drain', () => {
  let brain: BrainUnderTest;
  beforeAll(async () => {
    brain = await embeddedBrain();
  });
  afterAll(async () => {
    await brain?.close();
  });

  it('DELETE ends the session: transport and streams closed, the id answers 404 afterwards', async () => {
    const server = await startTestServer(brain, 'homelab');
    try {
      const sessions = server.app.mcpSessions;
      const client = await connectClient(server.url);
      const other = await rawSession(server.url);
      expect(sessions.count).toBe(2);
      // The v1 client opens its GET stream once initialized.
      await expect.poll(() => sessions.openStreams).toBe(1);
      expect((await client.listTools()).tools.length).toBeGreaterThan(5);
      const sid = transportOf(client).sessionId!;
      expect(sid).toBeTruthy();

      await transportOf(client).terminateSession();
      expect(sessions.count).toBe(1);
      // Its GET stream was ended by the server.
      await expect.poll(() => sessions.openStreams).toBe(0);
      const after = await listTools(server.url, sid);
      expect(after.status).toBe(404);
      expect(after.body).toContain('unknown or expired session');
      const get = await fetch(server.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
      await get.text();
      expect(get.status).toBe(404);
      await client.close();

      // A raw DELETE too, and the other session was not touched meanwhile.
      expect((await listTools(server.url, other)).status).toBe(200);
      const del = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': other, 'mcp-protocol-version': '2025-06-18' } });
      await del.text();
      expect(del.status).toBe(200);
      expect(sessions.count).toBe(0);
      expect((await listTools(server.url, other)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('an idle session expires (its id answers 404); one with an open GET stream does not', async () => {
    const idleMs = 400;
    expect(sweepIntervalMs(idleMs)).toBeLessThanOrEqual(idleMs);
    expect(sweepIntervalMs(10 * 60_000)).toBe(60_000);
    const server = await startTestServer(brain, 'homelab', { sessionIdleMs: idleMs });
    try {
      const sessions = server.app.mcpSessions;
      const listening = await connectClient(server.url);
      await expect.poll(() => sessions.openStreams).toBe(1);
      const idle = await rawSession(server.url);
      expect(sessions.count).toBe(2);

      await expect.poll(() => sessions.count, { timeout: 5_000, interval: 50 }).toBe(1);
      const expired = await listTools(server.url, idle);
      expect(expired.status).toBe(404);
      expect(expired.body).toContain('unknown or expired session');

      // Several idle times later the listening client is still served.
      await new Promise((r) => setTimeout(r, idleMs * 4));
      expect(sessions.count).toBe(1);
      expect((await listTools(server.url, transportOf(listening).sessionId!)).status).toBe(200);

      // A client that goes away without DELETE (what the SDK's close() does) expires too.
      await listening.close();
      await expect.poll(() => sessions.count, { timeout: 5_000, interval: 50 }).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('close drains for drainMs, answers 503 meanwhile, then closes every session and stream', async () => {
    const drainMs = 1_500;
    const server = await startTestServer(brain, 'homelab', { drainMs });
    const port = new URL(server.url).port;
    const sessions = server.app.mcpSessions;
    const { client, call } = await clientWithCallInFlight(server.url);
    await rawSession(server.url);
    expect(sessions.count).toBe(2);
    expect(sessions.openStreams).toBe(1);
    expect(sessions.inFlight).toBe(1);

    const started = Date.now();
    const closed = server.close().then(() => Date.now() - started);
    await new Promise((r) => setTimeout(r, 300));
    // Draining: still open, and a new request is turned away.
    expect(sessions.count).toBe(2);
    expect(await freshGet(`http://127.0.0.1:${port}/healthz`)).toBe(503);
    const elapsed = await closed;
    expect(elapsed).toBeGreaterThanOrEqual(drainMs - 100);
    expect(elapsed).toBeLessThan(drainMs + 3_000);
    expect(sessions.count).toBe(0);
    expect(sessions.openStreams).toBe(0);
    expect(sessions.inFlight).toBe(0);
    await client.close();
    expect(await call).toBeInstanceOf(Error);
  });

  it('closeNow() ends the drain at once', async () => {
    const server = await startTestServer(brain, 'homelab', { drainMs: 30_000 });
    const sessions = server.app.mcpSessions;
    const { client, call } = await clientWithCallInFlight(server.url);
    expect(sessions.inFlight).toBe(1);
    const started = Date.now();
    const closed = server.close().then(() => Date.now() - started);
    await new Promise((r) => setTimeout(r, 300));
    expect(sessions.count).toBe(1);
    sessions.closeNow();
    expect(await closed).toBeLessThan(3_000);
    expect(sessions.count).toBe(0);
    await client.close();
    expect(await call).toBeInstanceOf(Error);
  });
});

describe('[pglite] shutdown of the real processes with a client connected', () => {
  let brain: ScratchBrain;
  let home: string;
  let env: Record<string, string>;
  let ports: number[];
  const children: ChildProcess[] = [];
  beforeAll(() => {
    brain = scratchBrain('shutdown', ['personal', 'homelab', 'novel', 'book'], { BRAIN_EMBEDDER: 'none' });
    ({ home, env, ports } = brain);
    expect(runBrain(['init'], env).code).toBe(0);
  }, 300_000);
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    brain.remove();
  });
  const lockFile = () => join(home, 'data.lock');

  it('brain up: SIGTERM with an open GET stream and a call in flight exits 0 within 10 s', { timeout: 300_000 }, async () => {
    const proc = await startBrainProcess(['up'], { ...env, BRAIN_LOG_LEVEL: 'info' }, /The brain is open/);
    children.push(proc.child);
    expect(existsSync(lockFile())).toBe(true);
    const url = `http://127.0.0.1:${ports[1]}/mcp`;
    const { client, call } = await clientWithCallInFlight(url);
    expect(text(await client.callTool({ name: 'get', arguments: { slug: 'nothing/here' } }))).toContain('not_found');

    const since = Date.now();
    proc.child.kill('SIGTERM');
    const { ms, code } = await timeExit(proc.exited, proc.child, since);
    process.stdout.write(`brain up: exited ${code} ${ms} ms after SIGTERM\n`);
    expect(code, proc.output()).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(proc.output()).toContain('1 MCP session(s) open, 1 request(s) in flight');
    expect(proc.output()).toMatch(/"msg":"closed 1 MCP session\(s\)"/);
    expect(existsSync(lockFile())).toBe(false);
    await client.close().catch(() => undefined);
    expect(await call).toBeInstanceOf(Error);
  });

  it('brain serve: a second SIGTERM during the drain closes at once and still releases the data directory', { timeout: 300_000 }, async () => {
    const proc = await startBrainProcess(['serve', '--subject', 'homelab'], env, /serving "homelab"/);
    children.push(proc.child);
    expect(existsSync(lockFile())).toBe(true);
    const url = `http://127.0.0.1:${ports[1]}/mcp`;
    const { client, call } = await clientWithCallInFlight(url);

    proc.child.kill('SIGTERM');
    await expect.poll(() => proc.output(), { timeout: 5_000, interval: 20 }).toContain('shutting down');
    await new Promise((r) => setTimeout(r, 200));
    // Still draining (the drain lasts 5 s): the second signal ends it.
    expect(proc.child.exitCode).toBeNull();
    const since = Date.now();
    proc.child.kill('SIGTERM');
    const { ms, code } = await timeExit(proc.exited, proc.child, since);
    process.stdout.write(`brain serve: exited ${code} ${ms} ms after the second SIGTERM\n`);
    expect(code, proc.output()).toBe(0);
    expect(ms).toBeLessThan(3_000);
    expect(proc.output()).toContain('second signal: closing now');
    expect(existsSync(lockFile())).toBe(false);
    await client.close().catch(() => undefined);
    expect(await call).toBeInstanceOf(Error);
  });
});
