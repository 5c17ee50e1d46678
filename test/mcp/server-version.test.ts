// The version is written once, in package.json: `brain version` and every MCP server's
// serverInfo report that one (config/package.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PACKAGE_ROOT, VERSION } from '../../config/package.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOn } from '../support/both-databases.js';
import { runBrain } from '../support/cli.js';
import { connectClient, startTestServer } from '../support/mcp.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

it('brain version prints package.json\'s version', () => {
  expect(VERSION).toBe(pkg.version);
  const r = runBrain(['version'], {});
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(`claude-brain ${pkg.version}\n`);
});

describeOn('pglite', 'MCP serverInfo', (brain) => {
  let server: RunningSubjectServer;
  beforeAll(async () => {
    server = await startTestServer(brain(), 'homelab');
  });
  afterAll(async () => {
    await server?.close();
  });

  it("names the subject and carries package.json's version", async () => {
    const client = await connectClient(server.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'claude-brain-homelab', version: pkg.version });
    } finally {
      await client.close();
    }
  });
});
