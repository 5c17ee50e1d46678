// `brain serve --subject` on the embedded brain, as a real process holding the data directory:
// its server listens before PGlite has started and the bootstrap check has run (issue 17), and
// a request that comes meanwhile waits for them rather than failing. Times belong to
// bench/cli/latency.ts; this checks the order and the behaviour.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { runBrain } from '../support/cli.js';
import { connectClient, text } from '../support/mcp.js';
import { scratchBrain, startBrainProcess, stopBrainProcess, type ScratchBrain } from '../support/processes.js';

describe('[pglite] brain serve on the embedded brain listens before the brain is open', () => {
  let brain: ScratchBrain;
  let home: string;
  let env: Record<string, string>;
  let ports: number[];
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    brain = scratchBrain('serve-first', ['personal', 'homelab', 'novel', 'book'], { BRAIN_EMBEDDER: 'none' });
    ({ home, env, ports } = brain);
    const init = runBrain(['init'], env);
    expect(init.code, init.stderr).toBe(0);
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    await db.pg.exec("INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/nas', 'environment', 'NAS')");
    await db.close();
  }, 300_000);
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    brain.remove();
  });

  it('prints its address first, answers a request sent before the brain is open, then says it is open', { timeout: 180_000 }, async () => {
    const proc = await startBrainProcess(['serve', '--subject', 'homelab'], env, /serving "homelab"/);
    children.push(proc.child);
    const banner = proc.output();
    // Sent at once: it waits for PGlite and the bootstrap check, it is not refused.
    const client = await connectClient(`http://127.0.0.1:${ports[1]}/mcp`);
    const got = text(await client.callTool({ name: 'get', arguments: { slug: 'env/nas' } }));
    expect(got).toContain('homelab:env/nas');
    await client.close();
    for (let i = 0; i < 600 && !proc.output().includes('The brain is open'); i++) await new Promise((r) => setTimeout(r, 100));
    const out = proc.output();
    const serving = out.indexOf('serving "homelab"');
    const open = out.indexOf('The brain is open');
    expect(serving).toBeGreaterThanOrEqual(0);
    expect(open).toBeGreaterThan(serving);
    // The database's steps are timed after the address: PGlite's start and the bootstrap check
    // ran behind the listening server.
    expect(banner).toMatch(/started in \d+\.\d s: .*server listening/);
    expect(out.slice(open)).toMatch(/The brain is open, \d+\.\d s after start: .*bootstrap skipped/);
    // Shared with the CLI once open, as brain up does.
    const running = JSON.parse(readFileSync(join(home, 'running.json'), 'utf8')) as { pid: number; command: string };
    expect(running).toMatchObject({ pid: proc.child.pid, command: 'brain serve --subject homelab' });
    expect((await stopBrainProcess(proc.child)).code).toBe(0);
  });

  it('a brain it cannot open stops the server that was already listening, non-zero and saying why', { timeout: 180_000 }, async () => {
    // The bootstrap, which runs after the server listens, refuses a kinds.yaml without a kind in use.
    const kinds = join(brain.configDir, 'kinds.yaml');
    const original = readFileSync(kinds, 'utf8');
    writeFileSync(kinds, original.replace(/^ {2}environment:.*\n/m, ''));
    try {
      const proc = await startBrainProcess(['serve', '--subject', 'homelab'], env, /no longer lists kind "environment"/);
      children.push(proc.child);
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toMatch(/no longer lists kind "environment", but 1 topic\(s\) still use it/);
    } finally {
      writeFileSync(kinds, original);
    }
  });
});
