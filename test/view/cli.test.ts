// The view as users start it, as real processes on an embedded brain: `brain up` serves it
// beside the MCP servers (its URL in the banner), and `brain view` alone once no brain holds
// the data; both read-only over real HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { runBrain } from '../support/cli.js';
import { startBrainProcess, stopBrainProcess, scratchBrain, type ScratchBrain } from '../support/processes.js';

describe('[pglite] brain up and brain view serve the web view', () => {
  let brain: ScratchBrain;
  let configDir: string;
  let env: Record<string, string>;
  let viewPort: number;

  beforeAll(() => {
    brain = scratchBrain('view-cli', ['personal', 'homelab'], { BRAIN_EMBEDDER: 'none' }, { extraPorts: 1 });
    viewPort = brain.ports[2]!;
    configDir = brain.configDir;
    env = { ...brain.env, BRAIN_VIEW_PORT: String(viewPort) };
    const init = runBrain(['init'], env);
    expect(init.code, init.stderr).toBe(0);
    const put = runBrain(['call', 'remember', JSON.stringify({ kind: 'tool', title: 'restic', body: 'Backs up the NAS.' }), '--subject', 'homelab'], env);
    expect(put.code, put.stderr).toBe(0);
  }, 300_000);
  afterAll(() => brain.remove());

  const check = async () => {
    const base = `http://127.0.0.1:${viewPort}`;
    const overview = await fetch(`${base}/`);
    expect(overview.status).toBe(200);
    expect(overview.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await overview.text()).toContain('data-subject="homelab"');
    const card = await fetch(`${base}/s/homelab/card/tool/restic`);
    expect(card.status).toBe(200);
    expect(await card.text()).toContain('Backs up the NAS.');
    const post = await fetch(`${base}/`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
  };

  it('brain up prints the view URL and serves it', { timeout: 240_000 }, async () => {
    const brain = await startBrainProcess(['up'], env, /Stop with Ctrl-C/);
    try {
      expect(brain.output()).toContain(`Web view (read-only): http://127.0.0.1:${viewPort}/`);
      await check();
    } finally {
      await stopBrainProcess(brain.child);
    }
  });

  it('brain view serves it alone, as the audit role', { timeout: 240_000 }, async () => {
    const view = await startBrainProcess(['view'], env, /Stop with Ctrl-C/);
    try {
      expect(view.output()).toContain(`web view (read-only, as brain_audit) at http://127.0.0.1:${viewPort}/`);
      await check();
    } finally {
      await stopBrainProcess(view.child);
    }
  });

  it('brain up with the view on a subject\'s port runs without the view and names the clash', { timeout: 240_000 }, async () => {
    const homelabPort = /homelab:\n {4}port: (\d+)/.exec(readFileSync(join(configDir, 'subjects.yaml'), 'utf8'))![1]!;
    const brain = await startBrainProcess(['up'], { ...env, BRAIN_VIEW_PORT: homelabPort }, /Stop with Ctrl-C/);
    try {
      expect(brain.output()).toContain(`Web view: not started (port ${homelabPort} is the MCP port of subject "homelab" in subjects.yaml; set BRAIN_VIEW_PORT to a free port)`);
      // The subject's server has its port.
      const ready = await fetch(`http://127.0.0.1:${homelabPort}/healthz`);
      expect(ready.status).toBe(200);
    } finally {
      await stopBrainProcess(brain.child);
    }
  });
});
