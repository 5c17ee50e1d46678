// `brain up` on a warm data directory, and the CLI next to it, as real processes. The start
// skips an unchanged bootstrap, listens before its background work and prints its timed
// phases; then subject commands run through the running brain instead of being refused:
// tool calls over its MCP server (loading no database at all), other subject commands
// through its database link, and `serve --stdio` for two subjects side by side through its
// HTTP endpoints. Times belong to bench/cli/latency.ts; this checks the behaviour.
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { BRAIN_JS, runBrain, scratchConfigDir } from '../support/cli.js';
import { text } from '../support/mcp.js';
import { freePorts, startBrainProcess, stopBrainProcess, type BrainProcess } from '../support/processes.js';

describe('[pglite] brain up on a warm data directory, with the CLI beside it', () => {
  let home: string;
  let configDir: string;
  let traces: string;
  let env: Record<string, string>;
  let ports: number[];
  let brain: BrainProcess;
  const children: ChildProcess[] = [];

  /** `brain ARGS` with every file and module it touches recorded (test/support/trace-reads.mjs). */
  const traced = (name: string, args: string[], input?: string) => {
    const trace = join(traces, `${name}.txt`);
    const r = spawnSync(process.execPath, ['--import', join(PACKAGE_ROOT, 'test/support/trace-reads.mjs'), BRAIN_JS, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env, BRAIN_TRACE_FILE: trace },
      input,
      timeout: 120_000,
    });
    const touched = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n').filter(Boolean) : [];
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, touched };
  };
  const dataFiles = (touched: string[]) => [...new Set(touched.filter((p) => p.startsWith(`${join(home, 'data')}/`)))];

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-warm-'));
    traces = mkdtempSync(join(tmpdir(), 'brain-traces-'));
    configDir = scratchConfigDir();
    ports = freePorts(4);
    const subjects = ['personal', 'homelab', 'novel', 'book'];
    writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n${subjects.map((s, i) => `  ${s}:\n    port: ${ports[i]}\n`).join('')}`);
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none', BRAIN_SUBJECT: 'homelab' };
    // Initialised once: from here on the data directory is warm.
    const init = runBrain(['init'], env);
    expect(init.code, init.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
    rmSync(traces, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('starts without re-running an unchanged bootstrap, says which embedder serves search, and publishes where to reach it', { timeout: 180_000 }, async () => {
    const started = performance.now();
    brain = await startBrainProcess(['up'], env, /The brain is open/);
    children.push(brain.child);
    const out = brain.output();
    console.log(`brain up: banner after ${Math.round(performance.now() - started)} ms (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
    expect(out).toMatch(/Started in \d+\.\d s: modules loaded [\d,]+ ms, data directory checked/);
    expect(out).toContain('bootstrap skipped');
    expect(out).toContain('Search: keyword only; embeddings disabled (BRAIN_EMBEDDER=none)');
    expect(out).toContain(`brain-homelab http://127.0.0.1:${ports[1]}/mcp`);
    const running = JSON.parse(readFileSync(join(home, 'running.json'), 'utf8')) as { pid: number; command: string; mcp: Record<string, { url: string }>; link: { port: number } };
    expect(running).toMatchObject({ pid: brain.child.pid, command: 'brain up', mcp: { homelab: { url: `http://127.0.0.1:${ports[1]}/mcp` } } });
    expect(Object.keys(running.mcp).sort()).toEqual(['book', 'homelab', 'novel', 'personal']);
    expect(running.link.port).toBeGreaterThan(0);
  });

  it('brain remember and brain search answer through its MCP server: no PGlite loaded, no data file touched, the lock stays its own', { timeout: 120_000 }, () => {
    const wrote = traced('remember', ['remember', '--kind', 'tool', '--title', 'psycopg3', '--tag', 'python'], 'Connection pools and pipelines.');
    expect(wrote.code, wrote.stderr).toBe(0);
    expect(wrote.stdout).toContain('homelab:tool/psycopg3');
    const found = traced('search', ['search', 'pipelines']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain('homelab:tool/psycopg3');
    for (const r of [wrote, found]) {
      expect(r.touched.filter((p) => p.includes('/node_modules/@electric-sql/'))).toEqual([]);
      expect(dataFiles(r.touched)).toEqual([]);
    }
    expect(readFileSync(join(home, 'data.lock'), 'utf8').trim()).toBe(String(brain.child.pid));
  });

  it('other subject commands run through its database link, and their writes reach its servers', { timeout: 120_000 }, () => {
    const stats = traced('stats', ['stats']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/Cards\s+1/);
    expect(dataFiles(stats.touched)).toEqual([]);
    const tagged = runBrain(['tag', 'tool/psycopg3', 'postgres'], env);
    expect(tagged.code, tagged.stderr).toBe(0);
    const page = runBrain(['get', 'tool/psycopg3'], env);
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).toContain('postgres');
    // A command that needs the data directory itself is refused, naming the holder.
    const init = runBrain(['init'], env);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain(`in use by process ${brain.child.pid} (lock file ${join(home, 'data.lock')}), \`brain up\``);
  });

  it('serve --stdio for two subjects side by side passes each client through to the running servers', { timeout: 120_000 }, async () => {
    const connect = async (subject: string) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BRAIN_JS, 'serve', '--stdio', '--subject', subject], env: { PATH: process.env.PATH ?? '', ...env } });
      const client = new Client({ name: `stdio-${subject}`, version: '1' });
      await client.connect(transport);
      return client;
    };
    const [homelab, novel] = await Promise.all([connect('homelab'), connect('novel')]);
    expect(homelab.getInstructions()).toContain('subject "homelab"');
    expect(text(await homelab.callTool({ name: 'get', arguments: { slug: 'tool/psycopg3' } }))).toContain('homelab:tool/psycopg3');
    expect(text(await novel.callTool({ name: 'get', arguments: { slug: 'tool/psycopg3' } }))).toContain('not_found');
    const r = await novel.callTool({ name: 'remember', arguments: { kind: 'character', title: 'Ada', body: 'The navigator.' } });
    expect(r.isError, text(r)).toBeFalsy();
    await Promise.all([homelab.close(), novel.close()]);
    expect(runBrain(['get', 'character/ada', '--subject', 'novel'], env).stdout).toContain('The navigator.');
  });

  it('stops cleanly and withdraws running.json; the CLI then opens the data directory itself', { timeout: 120_000 }, async () => {
    expect((await stopBrainProcess(brain.child)).code).toBe(0);
    expect(existsSync(join(home, 'running.json'))).toBe(false);
    expect(existsSync(join(home, 'data.lock'))).toBe(false);
    const alone = traced('search-alone', ['search', 'pipelines']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toContain('homelab:tool/psycopg3');
    expect(dataFiles(alone.touched).length).toBeGreaterThan(0);
  });
});
