// The built programs around the compose file: render-compose.js (write and --check), the
// regeneration `brain subjects add/remove` does, and the container health check.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { renderCompose } from '../../services/deploy/compose.js';
import { refreshComposeFile } from '../../services/deploy/compose-file.js';
import { runBrain, scratchConfigDir } from '../support/cli.js';

const run = promisify(execFile);
const DIST = join(PACKAGE_ROOT, 'dist', 'services', 'deploy');

async function node(script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [join(DIST, script), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('render-compose.js', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchConfigDir();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the compose file beside subjects.yaml, and --check tells when it is stale', async () => {
    const subjectsFile = join(dir, 'subjects.yaml');
    expect((await node('render-compose.js', ['--check', subjectsFile])).code).toBe(1);
    const wrote = await node('render-compose.js', [subjectsFile]);
    expect(wrote.code, wrote.out).toBe(0);
    expect(readFileSync(join(dir, 'docker-compose.yml'), 'utf8')).toBe(renderCompose(loadSubjects(subjectsFile)));
    expect((await node('render-compose.js', ['--check', subjectsFile])).code).toBe(0);
    writeFileSync(subjectsFile, `${readFileSync(subjectsFile, 'utf8')}  garden:\n    port: 7420\n`);
    const stale = await node('render-compose.js', ['--check', subjectsFile]);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('out of date');
  });

  it('--dir DIR reads DIR/subjects.yaml and writes DIR/docker-compose.yml (how brain-up.sh runs it in the image)', async () => {
    const other = scratchConfigDir();
    try {
      const subjectsFile = join(other, 'subjects.yaml');
      writeFileSync(subjectsFile, `${readFileSync(subjectsFile, 'utf8')}  orchard:\n    port: 7430\n`);
      expect((await node('render-compose.js', ['--check', '--dir', other])).code).toBe(1);
      const wrote = await node('render-compose.js', ['--dir', other]);
      expect(wrote.code, wrote.out).toBe(0);
      expect(wrote.out).toContain(`wrote ${join(other, 'docker-compose.yml')}`);
      const text = readFileSync(join(other, 'docker-compose.yml'), 'utf8');
      expect(text).toBe(renderCompose(loadSubjects(subjectsFile)));
      expect(text).toContain('  brain-orchard:\n');
      expect((await node('render-compose.js', ['--check', '--dir', other])).code).toBe(0);
      const both = await node('render-compose.js', ['--dir', other, subjectsFile]);
      expect(both.code).toBe(2);
      expect(both.out).toContain('either --dir DIR or a subjects file');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('[pglite] brain subjects add/remove keeps docker-compose.yml in step', () => {
  let home: string;
  let dir: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    dir = scratchConfigDir();
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates no compose file where there was none (a scratch config dir)', () => {
    expect(refreshComposeFile(join(dir, 'subjects.yaml'))).toBeUndefined();
    expect(existsSync(join(dir, 'docker-compose.yml'))).toBe(false);
  });

  it('regenerates the compose file beside subjects.yaml on add and on remove', { timeout: 120_000 }, () => {
    const env = { BRAIN_HOME: home, BRAIN_CONFIG_DIR: dir };
    copyFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), join(dir, 'docker-compose.yml'));
    const added = runBrain(['subjects', 'add', 'garden'], env);
    expect(added.code, added.stderr).toBe(0);
    const afterAdd = readFileSync(join(dir, 'docker-compose.yml'), 'utf8');
    expect(afterAdd).toBe(renderCompose(loadSubjects(join(dir, 'subjects.yaml'))));
    expect(afterAdd).toContain('  brain-garden:\n');

    const removed = runBrain(['subjects', 'remove', 'garden', '--archive'], env);
    expect(removed.code, removed.stderr).toBe(0);
    const afterRemove = readFileSync(join(dir, 'docker-compose.yml'), 'utf8');
    expect(afterRemove).not.toContain('brain-garden');
    expect(afterRemove).toBe(renderCompose(loadSubjects(join(dir, 'subjects.yaml'))));
  });
});

describe('healthcheck.js', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? 200 : 503;
      res.end(JSON.stringify({ ready: req.url === '/healthz', host: req.headers.host }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 0 on a 2xx, 1 on a 503, asking over loopback on BRAIN_PORT', async () => {
    const live = await node('healthcheck.js', ['/healthz'], { BRAIN_PORT: String(port) });
    expect(live.code, live.out).toBe(0);
    expect(live.out).toContain(`"host":"127.0.0.1:${port}"`);
    const ready = await node('healthcheck.js', ['/readyz'], { BRAIN_PORT: String(port) });
    expect(ready.code).toBe(1);
    expect(ready.out).toContain('/readyz: 503');
  });

  it('exits 1 when nothing listens, or BRAIN_PORT is missing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await node('healthcheck.js', ['/healthz'], { BRAIN_PORT: String(free) })).code).toBe(1);
    const missing = await node('healthcheck.js', ['/healthz']);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('BRAIN_PORT');
  });
});
