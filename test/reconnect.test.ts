// Server mode when Postgres drops connections or restarts: a subject's MCP server runs in
// this process on its own throwaway Postgres (restarting it must not disturb the other
// tests' server), an MCP client calls tools, and the database is pulled away under it.
// The process must stay up, /readyz must say 503 while the database is away and 200 after,
// every write issued once the server is back must succeed, and every acknowledged write
// must be there afterwards.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../bench/scratch-database.js';
import { bootstrap } from '../db/bootstrap.js';
import { SecretStore } from '../db/secrets.js';
import { pgSession } from '../db/sql.js';
import { type SubjectDb } from '../db/subject-db.js';
import { openServerSubjectDb } from '../db/server-subject-db.js';
import { createContext, insertTopic, write } from '../services/knowledge/index.js';
import type { RunningSubjectServer } from '../services/runtime/subject-server.js';
import { startSubjectServer } from '../services/runtime/subject-server.js';
import { DENY_LIST, KINDS, testSubjects } from './support/brains.js';
import { connectClient, text } from './support/mcp.js';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayServer } from './support/postgres-server.js';

const run = promisify(execFile);
const bindir = findPostgresBinaries();

/** Polls until check() holds (or throws after `ms`): the only waiting these tests do. */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Write {
  marker: string;
  issuedAt: number;
  ok: boolean;
  detail: string;
}

describe.skipIf(!bindir)('[postgres] server mode survives the database going away', () => {
  let pgServer: ThrowawayServer;
  let adminUrl: URL;
  let dataDir: string;
  let handle: SubjectDb;
  let server: RunningSubjectServer;
  let client: Client;
  let secretsDir: string;
  const config = testSubjects(['personal', 'homelab']);
  const homelab = config.subjects.find((s) => s.name === 'homelab')!;

  /** A short-lived superuser connection: a long-lived one would die with every restart. */
  async function admin<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
    const c = new pg.Client({ connectionString: adminUrl.toString() });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return (await c.query<R>(text, params)).rows;
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  /** pg_ctl on the throwaway cluster, asynchronously so the server under test keeps running. */
  async function pgCtl(...args: string[]): Promise<void> {
    const pgctl = join(bindir!, 'pg_ctl');
    const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', pgctl, '-D', dataDir, ...args]] : [pgctl, ['-D', dataDir, ...args]];
    await run(cmd, argv as string[], { cwd: dirname(dataDir) });
  }

  // `brain serve` dies of an unhandled 'error' event on a pg pool or client; here vitest
  // would catch it, so the tests count them and expect none.
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  const readyz = async () => (await fetch(server.url.replace(/\/mcp$/, '/readyz'))).status;

  async function rememberNote(marker: string, by: Client = client): Promise<Write> {
    const issuedAt = Date.now();
    try {
      const r = await by.callTool({ name: 'remember', arguments: { kind: 'concept', title: `Outage log ${marker}`, body: `Entry ${marker} was written.` } });
      return { marker, issuedAt, ok: !r.isError, detail: text(r) };
    } catch (error) {
      return { marker, issuedAt, ok: false, detail: (error as Error).message };
    }
  }

  /** Writers calling remember one after another until stopped, each in its own MCP session (the rate limit is per session). */
  function writers(label: string, n: number) {
    let stop = false;
    const done: Write[] = [];
    const loops = Array.from({ length: n }, async (_, w) => {
      const own = await connectClient(server.url);
      try {
        for (let i = 0; !stop; i++) done.push(await rememberNote(`${label}-${w}-${i}`, own));
      } finally {
        await own.close();
      }
    });
    return {
      done,
      async stop() {
        stop = true;
        await Promise.all(loops);
        return done;
      },
    };
  }

  async function presentMarkers(label: string): Promise<Set<string>> {
    const rows = await admin<{ m: string }>(`SELECT (regexp_matches(body, 'Entry (${label}-[a-z0-9]+-[0-9]+) was written', 'g'))[1] AS m FROM homelab.topics`);
    return new Set(rows.map((r) => r.m));
  }

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    pgServer = await startThrowawayPostgres();
    const scratch = await createScratchDatabase(pgServer.adminUrl, 'brain_reconnect');
    scratch.admin.on('error', () => undefined);
    adminUrl = scratch.url;
    secretsDir = mkdtempSync(join(tmpdir(), 'brain-reconnect-secrets-'));
    const secrets = new SecretStore(secretsDir);
    await bootstrap(pgSession(scratch.admin), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets });
    // The cluster was started with its settings on pg_ctl's command line; a plain
    // `pg_ctl start` after a stop must find them in the configuration.
    const [{ data_directory: data, port, sockets } = { data_directory: '', port: '', sockets: '' }] = (
      await scratch.admin.query<{ data_directory: string; port: string; sockets: string }>(
        "SELECT current_setting('data_directory') AS data_directory, current_setting('port') AS port, current_setting('unix_socket_directories') AS sockets",
      )
    ).rows;
    dataDir = data;
    await scratch.admin.query(`ALTER SYSTEM SET port = ${Number(port)}`);
    await scratch.admin.query(`ALTER SYSTEM SET listen_addresses = '127.0.0.1'`);
    await scratch.admin.query(`ALTER SYSTEM SET unix_socket_directories = '${sockets.replace(/'/g, "''")}'`);
    // The shared test cluster runs with synchronous_commit=off, which loses the last
    // acknowledged commits in a crash (an immediate stop is one): not what is tested here.
    await scratch.admin.query(`ALTER DATABASE ${scratch.database} SET synchronous_commit = on`);
    await scratch.admin.end();
    handle = openServerSubjectDb({ host: adminUrl.hostname, port: Number(adminUrl.port), database: scratch.database }, homelab, secrets.read(homelab.role)!, 5, pino({ level: process.env.BRAIN_TEST_LOG ?? 'silent' }));
    server = await startSubjectServer({ subject: homelab, handle, host: '127.0.0.1', port: 0, logger: pino({ level: process.env.BRAIN_TEST_LOG ?? 'silent' }) });
    client = await connectClient(server.url);
  });

  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await client?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    pgServer?.stop();
    if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  });

  it('pg_terminate_backend on every connection of the role: the next calls succeed', async () => {
    // Several calls at once, so the pool holds several idle connections to lose.
    const warm = await Promise.all(['w0', 'w1', 'w2', 'w3'].map((m) => rememberNote(`term-${m}-0`)));
    expect(warm.filter((w) => !w.ok)).toEqual([]);
    const killed = await admin<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE usename = $1', [homelab.role]);
    expect(killed[0]!.n).toBeGreaterThan(0);

    const after = await Promise.all(['a0', 'a1', 'a2'].map((m) => rememberNote(`term-${m}-0`)));
    expect(after.filter((w) => !w.ok)).toEqual([]);
    const slug = /homelab:(\S+)/.exec(after[0]!.detail)?.[1];
    expect(slug).toBeDefined();
    const read = await client.callTool({ name: 'get', arguments: { slug } });
    expect(read.isError ?? false).toBe(false);
    expect(text(read)).toContain('Entry term-a0-0 was written.');
    expect(await readyz()).toBe(200);
    const present = await presentMarkers('term');
    expect([...warm, ...after].filter((w) => !present.has(w.marker)).map((w) => w.marker)).toEqual([]);
    expect(uncaught).toEqual([]);
  });

  /** Terminates the subject's backend that is running `marker` once it shows up. */
  async function terminateWhenRunning(marker: string): Promise<void> {
    let killed = 0;
    await until(`a backend running ${marker}`, async () => {
      const rows = await admin<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE usename = $1 AND state = 'active' AND position($2 in query) > 0`,
        [homelab.role, marker],
      );
      killed += rows[0]!.n;
      return killed > 0;
    });
  }

  it('a connection dropped under a statement: a lone read runs again, a transaction runs again whole', async () => {
    // A read cut off mid-statement: run again on a fresh connection.
    const read = sql<{ one: number }>`SELECT 1 AS one FROM pg_sleep(0.5) /* read-cut */`.execute(handle.db);
    await terminateWhenRunning('read-cut');
    expect((await read).rows).toEqual([{ one: 1 }]);

    // A transaction cut off before COMMIT: nothing of it was written, so all of it runs again.
    const ctx = await createContext(homelab, handle.db);
    let attempts = 0;
    const written = write(ctx, { operation: 'test' }, async (trx) => {
      attempts++;
      await sql`SELECT pg_sleep(0.5) /* tx-cut */`.execute(trx);
      return insertTopic(trx, 'homelab', { slug: 'concept/cut-off', kind: 'concept', title: 'Cut off', summary: '', body: 'Written once.', timeline: '', frontmatter: {}, tags: [] });
    });
    await terminateWhenRunning('tx-cut');
    expect((await written).slug).toBe('concept/cut-off');
    expect(attempts).toBe(2);
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.topics WHERE slug = 'concept/cut-off'`);
    expect(rows[0]!.n).toBe(1);
    expect(uncaught).toEqual([]);
  });

  it('pg_ctl restart -m immediate under writers: writes after the restart succeed, acknowledged writes are kept', async () => {
    const load = writers('restart', 3);
    await until('a few writes before the restart', async () => load.done.filter((w) => w.ok).length >= 6);
    // -l: without a log file the restarted server would hold pg_ctl's output pipe open.
    await pgCtl('restart', '-m', 'immediate', '-w', '-t', '60', '-l', join(dirname(dataDir), 'server.log'));
    const backAt = Date.now();
    await until('writes issued after the restart', async () => load.done.filter((w) => w.issuedAt > backAt).length >= 9);
    const done = await load.stop();

    const afterRestart = done.filter((w) => w.issuedAt > backAt);
    expect(afterRestart.filter((w) => !w.ok)).toEqual([]);
    const acknowledged = done.filter((w) => w.ok);
    expect(acknowledged.length).toBeGreaterThanOrEqual(15);
    const present = await presentMarkers('restart');
    expect(acknowledged.filter((w) => !present.has(w.marker)).map((w) => w.marker)).toEqual([]);
    await until('/readyz 200', async () => (await readyz()) === 200);
    expect(uncaught).toEqual([]);
  });

  it('stopped and started again: /readyz says 503 while it is down and 200 after, writes resume', async () => {
    const load = writers('stop', 2);
    await until('a few writes before the stop', async () => load.done.filter((w) => w.ok).length >= 4);
    await pgCtl('stop', '-m', 'immediate', '-w', '-t', '60');
    await until('/readyz 503 while the database is down', async () => (await readyz()) === 503);
    // Issued while the database is certainly down: they wait for it (within the retry
    // budget) instead of failing, and nothing about them is ambiguous.
    const whileDown = ['d0', 'd1'].map((m) => rememberNote(`stop-${m}-0`));
    await pgCtl('start', '-w', '-t', '60', '-l', join(dirname(dataDir), 'server.log'));
    const backAt = Date.now();
    await until('/readyz 200 once it is back', async () => (await readyz()) === 200);
    await until('writes issued after the start', async () => load.done.filter((w) => w.issuedAt > backAt).length >= 6);
    const done = await load.stop();

    expect(done.filter((w) => w.issuedAt > backAt && !w.ok)).toEqual([]);
    const waited = await Promise.all(whileDown);
    expect(waited.filter((w) => !w.ok)).toEqual([]);
    const acknowledged = [...done, ...waited].filter((w) => w.ok);
    const present = await presentMarkers('stop');
    expect(acknowledged.filter((w) => !present.has(w.marker)).map((w) => w.marker)).toEqual([]);
    expect(uncaught).toEqual([]);
  });
});
