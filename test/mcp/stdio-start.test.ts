// `brain serve --stdio` holding the embedded data directory answers before the brain is open
// (cli/serve-stdio.ts): a client that spawns it gets `initialize` and `tools/list` while PGlite
// starts and the bootstrap check runs. Shown on a brain that cannot open: kinds.yaml no longer
// lists a kind a card uses, which only the bootstrap, after PGlite's start, finds. The client is
// answered anyway, and the server then ends, saying why on stderr. Before, it opened first and
// ended before answering anything.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAIN_JS, runBrain, scratchConfigDir } from '../support/cli.js';

describe('[pglite] brain serve --stdio answers before the brain is open', { timeout: 240_000 }, () => {
  let home: string;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-stdio-start-'));
    configDir = scratchConfigDir();
    env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none' };
    const kinds = join(configDir, 'kinds.yaml');
    writeFileSync(kinds, readFileSync(kinds, 'utf8').replace(/^topic:\n/m, 'topic:\n  gadget: A device, and how it is set up.\n'));
    expect(runBrain(['init'], env).code).toBe(0);
    const used = runBrain(['call', 'remember', JSON.stringify({ kind: 'gadget', title: 'Phone', body: 'The one with the cracked screen.' })], { ...env, BRAIN_SUBJECT: 'homelab' });
    expect(used.code, used.stderr + used.stdout).toBe(0);
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('serves a client at once, and its tool calls once the brain is open', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BRAIN_JS, 'serve', '--stdio', '--subject', 'homelab'], env: { PATH: process.env.PATH ?? '', ...env } });
    const client = new Client({ name: 'stdio-start', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    const got = await client.callTool({ name: 'get', arguments: { slug: 'gadget/phone' } });
    expect(JSON.stringify(got.content)).toContain('cracked screen');
    await client.close();
  });

  it('answers initialize and tools/list before it finds the brain cannot open, then ends saying why', async () => {
    const kinds = join(configDir, 'kinds.yaml');
    writeFileSync(kinds, readFileSync(kinds, 'utf8').replace(/^  gadget: .*\n/m, ''));
    const transport = new StdioClientTransport({ command: process.execPath, args: [BRAIN_JS, 'serve', '--stdio', '--subject', 'homelab'], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    const client = new Client({ name: 'stdio-start', version: '1' });
    await client.connect(transport);
    expect(client.getInstructions()).toContain('subject "homelab"');
    await closed;
    expect(stderr).toContain('kinds.yaml no longer lists kind "gadget", but 1 topic(s) still use it');
  });
});
