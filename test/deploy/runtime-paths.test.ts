// Every path the server reads at run time is in the image. The final stage of the Dockerfile
// is laid out in a scratch folder from its COPY lines alone (node_modules linked, the rest
// copied), and the built CLI is run there as the containers run it: `init` as the migrate
// service does, then `serve --subject` as a subject's container does, a tool call through a
// real MCP client, and the health check. A preload traces every file the processes touch.
// A path that was read from the image folder and is missing there, while the checkout has
// it, is a file the Dockerfile forgot (db/grants/ once was); a module from node_modules that
// package-lock.json marks dev-only would be missing from the production install.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../../bench/scratch-database.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { finalStageCopies, readDockerfile, type FinalCopy } from '../support/dockerfile.js';
import { connectClient, text } from '../support/mcp.js';
import { freePort } from '../support/postgres-server.js';

const adminUrl = inject('pgAdminUrl');
const TRACER = join(PACKAGE_ROOT, 'test/support/trace-reads.mjs');

/** Where a final-stage source lives in the checkout: a build stage's /src and /app both mirror the project root. */
function checkoutPath(copy: FinalCopy, source: string): string {
  if (!copy.from) return join(PACKAGE_ROOT, source);
  const rel = source.replace(/^\/(src|app)\/?/, '');
  if (rel === source) throw new Error(`COPY --from=${copy.from} ${source}: not under /src or /app; teach runtime-paths.test.ts where it comes from`);
  return join(PACKAGE_ROOT, rel);
}

/** The final stage's files, laid out under `root` as the image's WORKDIR holds them. */
function layOutImage(root: string): void {
  const copies = finalStageCopies(readDockerfile());
  expect(copies.length).toBeGreaterThan(0);
  for (const copy of copies) {
    for (const source of copy.sources) {
      const from = checkoutPath(copy, source);
      const dest = copy.dest.endsWith('/') ? join(root, copy.dest, source.split('/').at(-1)!) : join(root, copy.dest);
      expect(existsSync(from), `${source} (COPY in the Dockerfile) is not in the checkout`).toBe(true);
      mkdirSync(resolve(dest, '..'), { recursive: true });
      // node_modules is large and the same files either way; which packages may be used is checked below.
      if (source.endsWith('node_modules')) symlinkSync(from, dest);
      else cpSync(from, dest, { recursive: true });
    }
  }
}

/** Packages package-lock.json marks dev-only: `npm ci --omit=dev` leaves them out of the image. */
function devOnlyPackages(): Set<string> {
  const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return new Set(Object.entries(lock.packages).filter(([path, p]) => path && p.dev).map(([path]) => path));
}

/** The innermost node_modules/<package> folder a path lies in, as package-lock.json names it. */
function packageOf(rel: string): string | undefined {
  const parts = rel.split(sep);
  let last = -1;
  for (let i = 0; i < parts.length; i++) if (parts[i] === 'node_modules') last = i;
  if (last < 0 || last + 1 >= parts.length) return undefined;
  const name = parts[last + 1]!.startsWith('@') ? parts.slice(last + 1, last + 3) : [parts[last + 1]!];
  return [...parts.slice(0, last + 1), ...name].join('/');
}

describe.skipIf(!adminUrl)('[postgres] the image holds every path the server reads at run time', () => {
  let work: string;
  let app: string;
  let scratch: ScratchDatabase;
  let traceFile: string;
  const prefix = `rt${process.pid}_`;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'brain-image-'));
    app = join(work, 'app');
    layOutImage(app);
    // The image's subjects, under a prefix of this test's own: roles are cluster-wide.
    const subjects = readFileSync(join(app, 'subjects.yaml'), 'utf8');
    expect(subjects).toMatch(/^role_prefix: brain_$/m);
    writeFileSync(join(app, 'subjects.yaml'), subjects.replace(/^role_prefix: brain_$/m, `role_prefix: ${prefix}`));
    scratch = await createScratchDatabase(adminUrl!, 'brain_image');
    traceFile = join(work, 'trace.log');
  });

  afterAll(async () => {
    server?.kill('SIGKILL');
    await scratch?.drop(prefix);
    rmSync(work, { recursive: true, force: true });
  });

  /** The environment of a container, as docker-compose.yml sets it, plus the tracer. */
  function containerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOME: join(work, 'home'),
      BRAIN_HOME: join(work, 'brain-home'),
      BRAIN_DATABASE_URL: `postgres://${scratch.url.hostname}:${scratch.url.port}/${scratch.database}`,
      BRAIN_TRACE_FILE: traceFile,
      NODE_OPTIONS: `--import=${TRACER}`,
      ...extra,
    };
  }

  it('runs init, a subject server, a tool call and the health check from the image layout', async () => {
    const secrets = join(work, 'secrets');
    mkdirSync(secrets, { mode: 0o700 });
    writeFileSync(join(work, 'admin_url'), scratch.url.toString(), { mode: 0o600 });

    const init = spawnSync(process.execPath, ['dist/cli/brain.js', 'init'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
      env: containerEnv({ BRAIN_ADMIN_URL_FILE: join(work, 'admin_url'), BRAIN_SECRETS_DIR: secrets }),
    });
    expect(init.status, `init failed in the image layout:\n${init.stderr}`).toBe(0);

    // The server listens on its subject's port (BRAIN_PORT is only the health check's): a free one.
    const port = await freePort();
    const subjects = readFileSync(join(app, 'subjects.yaml'), 'utf8');
    expect(subjects).toMatch(/^  homelab:\n    port: \d+$/m);
    writeFileSync(join(app, 'subjects.yaml'), subjects.replace(/^(  homelab:\n    port: )\d+$/m, `$1${port}`));
    const env = containerEnv({
      BRAIN_HOST: '127.0.0.1',
      BRAIN_PORT: String(port),
      BRAIN_DB_PASSWORD_FILE: join(secrets, `${prefix}homelab.password`),
      BRAIN_EMBEDDER: 'offline',
    });
    const serving = spawn(process.execPath, ['dist/cli/brain.js', 'serve', '--subject', 'homelab'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server = serving;
    let log = '';
    serving.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    serving.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const readyz = `http://127.0.0.1:${port}/readyz`;
    const deadline = Date.now() + 90_000;
    let ready = false;
    while (!ready && Date.now() < deadline && serving.exitCode === null) {
      ready = await fetch(readyz).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 250));
    }
    expect(ready, `the server never became ready:\n${log}`).toBe(true);

    const client = await connectClient(`http://127.0.0.1:${port}/mcp`);
    const remembered = await client.callTool({ name: 'remember', arguments: { title: 'Image layout check', kind: 'tool', body: 'The runtime image holds its grants.' } });
    expect(remembered.isError, text(remembered)).toBeFalsy();
    const found = await client.callTool({ name: 'search', arguments: { query: 'image layout grants' } });
    expect(text(found)).toContain('Image layout check');
    await client.close();

    const health = spawnSync(process.execPath, ['dist/services/deploy/healthcheck.js', '/readyz'], { cwd: app, env, encoding: 'utf8', timeout: 30_000 });
    expect(health.status, health.stdout + health.stderr).toBe(0);

    const exited = new Promise((r) => serving.once('exit', r));
    serving.kill('SIGTERM');
    await exited;
    server = undefined;
  }, 300_000);

  it('read nothing that the Dockerfile leaves out', () => {
    const traced = [...new Set(readFileSync(traceFile, 'utf8').split('\n').filter(Boolean))];
    const inImage = traced.filter((p) => p.startsWith(app + sep));
    // The trace really saw the files that matter, or this test proves nothing.
    for (const must of ['db/grants/role.sql', 'subjects.yaml', 'kinds.yaml', 'deny-list.yaml', 'package.json', 'dist/cli/brain.js']) {
      expect(inImage, `the trace never saw ${must}`).toContain(join(app, must));
    }
    expect(inImage.some((p) => p.startsWith(join(app, 'migrations') + sep))).toBe(true);

    const missing = inImage
      .map((p) => relative(app, p))
      .filter((rel) => !existsSync(join(app, rel)) && existsSync(join(PACKAGE_ROOT, rel)));
    expect(missing, 'read at run time but not copied by the Dockerfile').toEqual([]);

    const devOnly = devOnlyPackages();
    const modules = traced.filter((p) => p.startsWith(join(PACKAGE_ROOT, 'node_modules') + sep)).map((p) => packageOf(relative(PACKAGE_ROOT, p)));
    expect(modules.length).toBeGreaterThan(0);
    const fromDev = [...new Set(modules.filter((m): m is string => m !== undefined && devOnly.has(m)))];
    expect(fromDev, 'loaded at run time but dev-only in package-lock.json (npm ci --omit=dev leaves it out)').toEqual([]);

    // Nothing else of the checkout (tests, sources, .brain/) is reached from the image layout.
    const checkout = traced.filter((p) => p.startsWith(PACKAGE_ROOT + sep) && !p.startsWith(join(PACKAGE_ROOT, 'node_modules') + sep));
    expect(checkout).toEqual([]);
  });
});
