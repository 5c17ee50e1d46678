// The servers as real processes, the way users and the compose stack run them:
// `brain up` (the embedded brain, every subject), `brain serve --subject` with only that
// subject's password, and `brain serve --stdio`.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { serverBrain, testSubjects, type BrainUnderTest } from '../support/brains.js';
import { BRAIN_JS, runBrain, scratchConfigDir } from '../support/cli.js';
import { connectClient, text } from '../support/mcp.js';
import { freePorts, startBrainProcess, stopBrainProcess, scratchBrain, type ScratchBrain } from '../support/processes.js';

describe('[pglite] brain up: the embedded brain as a real process', () => {
  let brain: ScratchBrain;
  let home: string;
  let env: Record<string, string>;
  let ports: number[];
  beforeAll(() => {
    brain = scratchBrain('up', ['personal', 'homelab', 'novel', 'book'], { BRAIN_EMBEDDER: 'none' });
    ({ home, env, ports } = brain);
  });
  afterAll(() => brain.remove());

  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  // Slow by nature: a fresh PGlite data directory is an initdb in WebAssembly.
  it('serves every subject, keeps what was written across a restart, and stops cleanly', { timeout: 300_000 }, async () => {
    expect(runBrain(['init'], env).code).toBe(0);
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    await db.pg.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/nas', 'environment', 'NAS')");
    await db.close();

    // At info level, so that its maintenance pass is logged (`up` logs warnings only by default).
    let proc = await startBrainProcess(['up'], { ...env, BRAIN_LOG_LEVEL: 'info' }, /The brain is open/);
    children.push(proc.child);
    expect(proc.output()).toContain(`brain-homelab http://127.0.0.1:${ports[1]}/mcp`);
    let client = await connectClient(`http://127.0.0.1:${ports[1]}/mcp`);
    const r = await client.callTool({ name: 'record', arguments: { kind: 'deploy', date: '2026-11-29', title: 'Moved to the embedded brain', topics: ['env/nas'] } });
    expect(r.isError).toBeFalsy();
    expect(text(await client.callTool({ name: 'get', arguments: { slug: 'env/nas', include: ['timeline'] } }))).toContain('Moved to the embedded brain');
    const personal = await connectClient(`http://127.0.0.1:${ports[0]}/mcp`);
    expect(text(await personal.callTool({ name: 'get', arguments: { slug: 'env/nas' } }))).toContain('not_found');
    await personal.close();
    await client.close();
    // PGlite has no autovacuum: the serving process analyses, once at start, the tables never analysed or whose size moved.
    const first = proc;
    const maintained = () => first.output().split('\n').some((l) => l.includes('"msg":"embedded maintenance"') && l.includes('"table":"homelab.topics"'));
    await expect.poll(maintained, { timeout: 60_000 }).toBe(true);
    expect((await stopBrainProcess(proc.child)).code).toBe(0);

    proc = await startBrainProcess(['up'], env, /The brain is open/);
    children.push(proc.child);
    client = await connectClient(`http://127.0.0.1:${ports[1]}/mcp`);
    expect(text(await client.callTool({ name: 'get', arguments: { slug: 'env/nas', include: ['timeline'] } }))).toContain('Moved to the embedded brain');
    // A second process cannot open the same data directory.
    const second = runBrain(['init'], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('in use by process');
    await client.close();
    expect((await stopBrainProcess(proc.child)).code).toBe(0);
  });

  it('serve --stdio speaks MCP on stdin/stdout', { timeout: 120_000 }, async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BRAIN_JS, 'serve', '--stdio', '--subject', 'homelab'], env: { ...env, PATH: process.env.PATH ?? '' } });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    expect(client.getInstructions()).toContain('subject "homelab"');
    expect(text(await client.callTool({ name: 'get', arguments: { slug: 'env/nas' } }))).toContain('homelab:env/nas');
    await client.close();
  });
});

describe.skipIf(!inject('pgAdminUrl'))('[postgres] brain serve: one subject, one role, one process', () => {
  let brain: BrainUnderTest;
  let passwordFile: string;
  let dir: string;
  beforeAll(async () => {
    brain = await serverBrain(inject('pgAdminUrl')!, testSubjects());
    await brain.admin.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/nas', 'environment', 'NAS')");
    dir = mkdtempSync(join(tmpdir(), 'brain-serve-'));
    passwordFile = join(dir, 'homelab.password');
  });
  afterAll(async () => {
    await brain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs with only its own password: no admin URL, no other role', { timeout: 120_000 }, async () => {
    const loc = { port: brain.location!.port, db: brain.location!.database };
    const homelab = brain.config.subjects.find((s) => s.name === 'homelab')!;
    writeFileSync(passwordFile, readFileSync(brain.secretsFile!(homelab.role)), { mode: 0o600 });
    const configDir = scratchConfigDir();
    const [port] = freePorts(1);
    writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: ${brain.config.rolePrefix}\nsubjects:\n${brain.config.subjects.map((s, i) => `  ${s.name}:\n    port: ${port! + i}\n`).join('')}`);
    const proc = await startBrainProcess(
      ['serve', '--subject', 'homelab'],
      { BRAIN_CONFIG_DIR: configDir, BRAIN_HOME: dir, BRAIN_DATABASE_URL: `postgres://127.0.0.1:${loc.port}/${loc.db}`, BRAIN_DB_PASSWORD_FILE: passwordFile, BRAIN_EMBEDDER: 'none' },
      /serving "homelab"/,
    );
    try {
      const url = `http://127.0.0.1:${port! + 1}`;
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { ready: boolean; role: string };
      expect(ready).toMatchObject({ ready: true, role: homelab.role });
      const client = await connectClient(`${url}/mcp`);
      expect(text(await client.callTool({ name: 'get', arguments: { slug: 'env/nas' } }))).toContain('homelab:env/nas');
      await client.close();
      expect(proc.output()).not.toContain(readFileSync(passwordFile, 'utf8').trim());
    } finally {
      expect((await stopBrainProcess(proc.child)).code).toBe(0);
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
