// brain-up.sh, run with bash in a scratch copy of the project, against stub docker, colima and
// curl (test/fixtures/deploy/bin) that record every call and answer as each scenario says.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { addSubjectToFile, loadSubjects } from '../../config/subjects.js';
import { renderCompose } from '../../services/deploy/compose.js';
import { writeComposeFile } from '../../services/deploy/compose-file.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import type { HttpExchange } from '../../services/embeddings/http-exchange.js';
import { createEmbedder } from '../../services/embeddings/select.js';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { chooseEmbedder, startSubjectEmbedding } from '../../services/runtime/embedding.js';
import { NO_VECTORS } from '../../services/search/worker.js';

const SCRIPT = join(PACKAGE_ROOT, 'brain-up.sh');
const STUBS = join(PACKAGE_ROOT, 'test/fixtures/deploy/bin');
const PORTS = { personal: 7401, homelab: 7402, novel: 7403, book: 7404 };
const DEFAULT_STUBS = ['docker', 'curl', 'colima', 'uname', 'node'];
const isRoot = process.getuid?.() === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every stub call, one per line: `docker compose ... up -d`, `curl URL`, `colima start`. */
  calls: string[];
  project: string;
}

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project dir with the script, subjects.yaml and the compose file, as a checkout has them. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'brain-up-'));
  scratch.push(dir);
  mkdirSync(join(dir, 'proj'));
  mkdirSync(join(dir, 'state'));
  for (const f of ['brain-up.sh', 'subjects.yaml', 'docker-compose.yml']) copyFileSync(join(PACKAGE_ROOT, f), join(dir, 'proj', f));
  return dir;
}

/** A bin dir with only the named stubs, so a scenario can leave colima out. */
function stubBin(dir: string, names: string[]): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const n of names) symlinkSync(join(STUBS, n), join(bin, n));
  return bin;
}

function brainUp(args: string[], scenario: Record<string, string> = {}, opts: { dir?: string; stubs?: string[]; input?: string; uid?: number; gid?: number } = {}): Run {
  const dir = opts.dir ?? project();
  const bin = existsSync(join(dir, 'bin')) ? join(dir, 'bin') : stubBin(dir, opts.stubs ?? DEFAULT_STUBS);
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  // A run as another user (opts.uid) must still reach the call log and the stubs' state.
  if (opts.uid !== undefined) {
    chmodSync(dir, 0o755);
    chmodSync(log, 0o666);
    chmodSync(join(dir, 'state'), 0o777);
  }
  const r = spawnSync('bash', [join(dir, 'proj', 'brain-up.sh'), ...args], {
    encoding: 'utf8',
    input: opts.input ?? '',
    timeout: 30_000,
    ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.gid ?? opts.uid }),
    env: {
      // The stubs first; the system's awk, sed, od and friends after. No real docker is reached.
      PATH: `${bin}:/usr/bin:/bin`,
      HOME: dir,
      STUB_LOG: log,
      STUB_STATE: join(dir, 'state'),
      BRAIN_UP_TIMEOUT: '1',
      BRAIN_UP_POLL: '0.1',
      // What the stub docker runs for `docker run ... render-compose.js` (the image's node and dist/).
      STUB_NODE: process.execPath,
      STUB_DIST: join(PACKAGE_ROOT, 'dist'),
      ...scenario,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls: readFileSync(log, 'utf8').split('\n').filter(Boolean), project: join(dir, 'proj') };
}

/** The calls on the stack (`docker compose version` is only the plugin check). */
const composeCalls = (r: Run) => r.calls.filter((c) => c.startsWith('docker compose --project-directory'));
const secretsOf = (r: Run) => {
  const dir = join(r.project, '.brain', 'secrets');
  return readdirSync(dir).map((f) => ({ file: f, path: join(dir, f), value: readFileSync(join(dir, f), 'utf8').trim() }));
};

describe('brain-up.sh', () => {
  it('with everything healthy: builds, starts, waits for migrate, prints the table and the client lines, exits 0', () => {
    const r = brainUp([]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls).not.toContain('colima start');
    const compose = composeCalls(r).map((c) => c.replace(/^docker compose --project-directory \S+ -f \S+ /, ''));
    expect(compose).toEqual(['build', 'up -d --remove-orphans', 'ps -a --format {{.State}} {{.ExitCode}} migrate']);
    for (const [name, port] of Object.entries(PORTS)) {
      expect(r.stdout).toMatch(new RegExp(`^${name}\\s+http://127\\.0\\.0\\.1:${port}/mcp\\s+ready$`, 'm'));
      expect(r.stdout).toContain(`claude mcp add --transport http brain-${name} http://127.0.0.1:${port}/mcp`);
      expect(r.calls).toContain(`curl http://127.0.0.1:${port}/readyz`);
    }
    expect(r.stderr).toBe('');
  });

  it('starts colima when Docker is not answering and colima is installed', () => {
    const r = brainUp([], { STUB_DOCKER: 'down' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('starting colima');
    const start = r.calls.indexOf('colima start');
    expect(start).toBeGreaterThan(r.calls.indexOf('docker info'));
    expect(r.calls.findIndex((c) => c.includes(' up -d'))).toBeGreaterThan(start);
  });

  it('waits for Docker while colima boots, and gives up after its timeout', () => {
    // Timeouts are whole seconds counted by bash's SECONDS, so 1 may be barely more than 0: allow 10.
    const slow = brainUp([], { STUB_DOCKER: 'down', STUB_DOCKER_SLOW: '3', BRAIN_UP_TIMEOUT: '10' });
    expect(slow.code, slow.stderr).toBe(0);
    expect(slow.calls.filter((c) => c === 'docker info').length).toBe(5);
    const never = brainUp([], { STUB_DOCKER: 'down', STUB_DOCKER_SLOW: '1000' });
    expect(never.code).toBe(1);
    expect(never.stderr).toContain('colima started but Docker is still not answering after 1s');
  });

  it('fails with advice for the platform when Docker is not answering and there is no colima', () => {
    const stubs = ['docker', 'curl', 'uname', 'node'];
    const mac = brainUp([], { STUB_DOCKER: 'down', STUB_UNAME: 'Darwin' }, { stubs });
    expect(mac.code).toBe(1);
    expect(mac.stderr).toMatch(/Docker is not answering.*install colima/);
    expect(composeCalls(mac)).toEqual([]);
    const linux = brainUp([], { STUB_DOCKER: 'down' }, { stubs });
    expect(linux.code).toBe(1);
    expect(linux.stderr).toContain('sudo systemctl start docker');
    expect(linux.stderr).not.toMatch(/colima|brew/);
    const denied = brainUp([], { STUB_DOCKER: 'denied' }, { stubs });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/permission denied.*docker group.*sudo/);
  });

  it('warns, with the fix, when Ollama is down, and carries on', () => {
    // On a Mac host.docker.internal is the host's loopback; on Linux the bridge gateway.
    const mac = brainUp([], { STUB_OLLAMA: 'down', STUB_UNAME: 'Darwin' });
    expect(mac.code, mac.stderr).toBe(0);
    expect(mac.stderr).toMatch(/Ollama is not answering on http:\/\/127\.0\.0\.1:11434: search will be keyword-only/);
    expect(mac.stderr).toContain('ollama serve');
    expect(mac.stderr).toContain('ollama pull nomic-embed-text');
    expect(mac.calls.some((c) => c.includes(' up -d'))).toBe(true);
    const linux = brainUp([], { STUB_OLLAMA: 'down' });
    expect(linux.code, linux.stderr).toBe(0);
    expect(linux.stderr).toMatch(/Ollama is not answering on http:\/\/172\.17\.0\.1:11434: search will be keyword-only/);
    expect(linux.stderr).not.toContain('listens on loopback only');
  });

  it('warns when the model is not pulled, and is quiet when the configured one is', () => {
    const missing = brainUp([], { STUB_OLLAMA_MODELS: 'llama3:latest nomic-embed-text-v2:latest' });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toMatch(/has no model nomic-embed-text: search will be keyword-only/);
    expect(missing.stderr).toContain('fix: ollama pull nomic-embed-text');
    const tagged = brainUp([], { STUB_OLLAMA_MODELS: 'mxbai-embed-large:335m', BRAIN_OLLAMA_MODEL: 'mxbai-embed-large:335m' });
    expect(tagged.stderr).toBe('');
  });

  it('exits non-zero naming the server that is not ready, after trying the others', () => {
    const r = brainUp([], { STUB_UNHEALTHY_PORTS: '7403', BRAIN_UP_TIMEOUT: '2' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^novel\s+\S+\s+NOT READY$/m);
    expect(r.stdout).toMatch(/^book\s+\S+\s+ready$/m);
    expect(r.stderr).toMatch(/not ready: novel\b/);
    expect(r.stderr).not.toMatch(/not ready:.*(personal|homelab|book)/);
    // It kept asking until its timeout, not just once.
    expect(r.calls.filter((c) => c === 'curl http://127.0.0.1:7403/readyz').length).toBeGreaterThan(1);
  });

  it('fails with the log of migrate when migrate fails, before asking any server', () => {
    const r = brainUp([], { STUB_MIGRATE_EXIT: '3' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('migrate exited with status 3');
    expect(r.stderr).toMatch(/stub log line of logs .*migrate/);
    expect(r.calls.some((c) => c.endsWith('/readyz'))).toBe(false);
  });

  it('generates every secret once, 0600 in a 0700 folder, and never prints one', () => {
    const r = brainUp([]);
    expect(r.code, r.stderr).toBe(0);
    const secrets = secretsOf(r);
    expect(secrets.map((s) => s.file).sort()).toEqual(
      ['admin_url', 'brain_audit.password', 'brain_book.password', 'brain_homelab.password', 'brain_novel.password', 'brain_personal.password', 'postgres_password'].sort(),
    );
    expect(statSync(join(r.project, '.brain', 'secrets')).mode & 0o777).toBe(0o700);
    // Run as root, the files are handed to the containers' user (1000); otherwise they stay the caller's.
    const owner = process.getuid?.() === 0 ? 1000 : process.getuid?.();
    const password = secrets.find((s) => s.file === 'postgres_password')!.value;
    for (const s of secrets) {
      expect(statSync(s.path).mode & 0o777, s.file).toBe(0o600);
      expect(statSync(s.path).uid, s.file).toBe(owner);
      if (s.file !== 'admin_url') expect(s.value, s.file).toMatch(/^[0-9a-f]{48}$/);
      for (const text of [r.stdout, r.stderr, r.calls.join('\n')]) expect(text.includes(s.value), s.file).toBe(false);
    }
    expect(new Set(secrets.map((s) => s.value)).size).toBe(secrets.length);
    expect(secrets.find((s) => s.file === 'admin_url')!.value).toBe(`postgres://postgres:${password}@db:5432/brain`);
    // Every secret file the compose file names is one the script wrote.
    const named = [...readFileSync(join(r.project, 'docker-compose.yml'), 'utf8').matchAll(/file: \.\/\.brain\/secrets\/(\S+)/g)].map((m) => m[1]);
    for (const f of named) expect(secrets.map((s) => s.file), f).toContain(f);
  });

  it('keeps existing secrets on a second run', () => {
    const dir = project();
    const first = brainUp([], {}, { dir });
    const before = secretsOf(first).map((s) => s.value);
    const second = brainUp([], {}, { dir });
    expect(second.code, second.stderr).toBe(0);
    expect(secretsOf(second).map((s) => s.value)).toEqual(before);
  });

  it('--down stops the stack and never removes the volume', () => {
    const r = brainUp(['--down']);
    expect(r.code, r.stderr).toBe(0);
    const compose = composeCalls(r);
    expect(compose).toHaveLength(1);
    // The profile names the bundled db, so --down stops it even while an --external-db override hides it.
    expect(compose[0]).toMatch(/ --profile bundled-db down --remove-orphans$/);
    expect(r.calls.join('\n')).not.toMatch(/(\s-v\b|--volumes|volume rm)/);
    expect(existsSync(join(r.project, '.brain'))).toBe(false);
  });

  it('--status shows the containers and each server once, failing when one is not ready', () => {
    const ok = brainUp(['--status']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(composeCalls(ok).map((c) => c.replace(/^.* -f \S+ /, ''))).toEqual(['ps -a']);
    expect(ok.calls.filter((c) => c.endsWith('/readyz'))).toHaveLength(4);
    const bad = brainUp(['--status'], { STUB_UNHEALTHY_PORTS: '7401' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not ready: personal/);
  });

  it('--logs SUBJECT shows that server, and refuses an unknown subject', () => {
    const r = brainUp(['--logs', 'novel']);
    expect(r.code, r.stderr).toBe(0);
    expect(composeCalls(r).at(-1)).toMatch(/ logs --no-color --tail 200 brain-novel$/);
    const bad = brainUp(['--logs', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown subject "nope"');
  });

  it('--external-db keeps the admin URL in a secret file and the servers get the location only', () => {
    const url = 'postgres://admin:s3cret-pw@pg.internal:6543/brainprod?sslmode=require';
    const r = brainUp(['--external-db', '-'], {}, { input: `${url}\n` });
    expect(r.code, r.stderr).toBe(0);
    const stored = join(r.project, '.brain', 'secrets', 'external_admin_url');
    expect(readFileSync(stored, 'utf8').trim()).toBe(url);
    expect(statSync(stored).mode & 0o777).toBe(0o600);
    for (const text of [r.stdout, r.stderr, r.calls.join('\n')]) expect(text).not.toContain('s3cret-pw');
    const override = readFileSync(join(r.project, '.brain', 'compose.external-db.yml'), 'utf8');
    expect(override).not.toContain('s3cret');
    expect(override).toContain('BRAIN_DATABASE_URL: "postgres://pg.internal:6543/brainprod?sslmode=require"');
    expect(override).toMatch(/db:\n\s+profiles:/);
    for (const name of Object.keys(PORTS)) expect(override).toContain(`  brain-${name}:\n`);
    expect(override).toContain('file: ./.brain/secrets/external_admin_url\n');
    // The bootstrap ran against it (with the trial override) before up recreated the servers with the final one.
    const calls = composeCalls(r);
    const trial = calls.findIndex((c) => c.endsWith(' run --rm --no-deps -T migrate'));
    const up = calls.findIndex((c) => c.endsWith(' up -d --remove-orphans'));
    expect(trial).toBeGreaterThan(-1);
    expect(calls[trial]).toContain('-f ' + join(r.project, '.brain', 'compose.external-db.trial.yml'));
    expect(up).toBeGreaterThan(trial);
    for (const c of calls.slice(trial + 1)) expect(c).toContain('-f ' + join(r.project, '.brain', 'compose.external-db.yml'));
    // Once the servers run against it, a bundled db container from before is removed (never its volume).
    const rmDb = calls.findIndex((c) => c.endsWith(' --profile bundled-db rm --stop --force db'));
    expect(rmDb).toBeGreaterThan(up);
    expect(readdirSync(join(r.project, '.brain')).filter((f) => f.includes('trial'))).toEqual([]);
    expect(readdirSync(join(r.project, '.brain', 'secrets')).filter((f) => f.includes('trial'))).toEqual([]);
    expect(brainUp(['--external-db', 'postgres://nocredentials:5432/x']).stderr).toMatch(/wants the admin URL/);
  });

  it('starts the new server when the compose file was regenerated after subjects.yaml changed (brain subjects add)', () => {
    const dir = project();
    addSubjectToFile(join(dir, 'proj', 'subjects.yaml'), 'garden');
    writeComposeFile(join(dir, 'proj', 'subjects.yaml'));
    const fresh = brainUp([], {}, { dir });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.calls.some((c) => c.startsWith('docker build') || c.startsWith('docker run'))).toBe(false);
    expect(fresh.stdout).toMatch(/^garden\s+http:\/\/127\.0\.0\.1:7405\/mcp\s+ready$/m);
    expect(existsSync(join(dir, 'proj', '.brain', 'secrets', 'brain_garden.password'))).toBe(true);
  });
});

const EXTERNAL_URL = 'postgres://admin:s3cret-pw@pg.internal:6543/brainprod?sslmode=require';
const ownerOf = (path: string) => statSync(path).uid;

describe('brain-up.sh: the compose it needs (v2.24+ as the docker plugin)', () => {
  it('refuses compose v2 older than 2.24, with the fix for Linux (never brew) and for a Mac', () => {
    const linux = brainUp([], { STUB_COMPOSE_VERSION: '2.20.2' });
    expect(linux.code).toBe(1);
    expect(linux.stderr).toContain('docker compose is version 2.20.2; brain-up.sh needs 2.24 or newer');
    expect(linux.stderr).toContain('docker-compose-plugin');
    expect(linux.stderr).toContain('Debian trixie');
    expect(linux.stderr).not.toMatch(/brew|cliPluginsExtraDirs/);
    expect(composeCalls(linux)).toEqual([]);
    const mac = brainUp([], { STUB_COMPOSE_VERSION: 'v2.23.3', STUB_UNAME: 'Darwin' });
    expect(mac.code).toBe(1);
    expect(mac.stderr).toContain('docker compose is version 2.23.3');
    expect(mac.stderr).toContain('brew install docker-compose');
    expect(mac.stderr).toContain('"cliPluginsExtraDirs": ["$(brew --prefix)/lib/docker/cli-plugins"]');
    expect(mac.stderr).not.toContain('apt');
  });

  it('accepts 2.24 and newer, however the version is spelled', () => {
    for (const v of ['2.24.0', 'v2.29.7', '2.30.0-desktop.1', '5.0.0']) {
      const r = brainUp([], { STUB_COMPOSE_VERSION: v });
      expect(r.code, `${v}: ${r.stderr}`).toBe(0);
      expect(r.calls).toContain('docker compose version --short');
    }
    // A compose without --short is read from its long answer.
    const old = brainUp([], { STUB_COMPOSE_VERSION: '2.12.2', STUB_COMPOSE_NO_SHORT: '1' });
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('docker compose is version 2.12.2; brain-up.sh needs 2.24 or newer');
    const recent = brainUp([], { STUB_COMPOSE_VERSION: '2.27.1', STUB_COMPOSE_NO_SHORT: '1' });
    expect(recent.code, recent.stderr).toBe(0);
  });

  it("names compose v1 (Debian bookworm's docker-compose 1.29) for what it is", () => {
    const r = brainUp([], { STUB_COMPOSE_VERSION: 'none' }, { stubs: [...DEFAULT_STUBS, 'docker-compose'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('found docker-compose 1.29.2, which is compose v1');
    expect(r.stderr).toContain('docker-compose-plugin');
    expect(r.stderr).not.toContain('brew');
    const missing = brainUp([], { STUB_COMPOSE_VERSION: 'none' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the docker compose plugin (v2.24+) is missing');
    expect(missing.stderr).toContain('docker-compose-plugin');
  });

  it("explains Homebrew's plugin that docker does not find: cliPluginsExtraDirs", () => {
    const dir = project();
    const prefix = join(dir, 'homebrew');
    mkdirSync(join(prefix, 'lib', 'docker', 'cli-plugins'), { recursive: true });
    writeFileSync(join(prefix, 'lib', 'docker', 'cli-plugins', 'docker-compose'), '#!/bin/sh\n', { mode: 0o755 });
    const r = brainUp([], { STUB_COMPOSE_VERSION: 'none', STUB_UNAME: 'Darwin', STUB_BREW_PREFIX: prefix }, { dir, stubs: [...DEFAULT_STUBS, 'brew'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Homebrew's compose plugin is installed (${prefix}/lib/docker/cli-plugins/docker-compose), but \`docker compose\` does not find it`);
    expect(r.stderr).toContain(`"cliPluginsExtraDirs": ["${prefix}/lib/docker/cli-plugins"]`);
    expect(r.stderr).toContain('~/.docker/config.json');
    // Without the plugin file it is plain advice to install it, with the real prefix.
    rmSync(join(prefix, 'lib'), { recursive: true });
    const none = brainUp([], { STUB_COMPOSE_VERSION: 'none', STUB_UNAME: 'Darwin', STUB_BREW_PREFIX: prefix }, { dir });
    expect(none.stderr).toContain('brew install docker-compose');
    expect(none.stderr).toContain(`"cliPluginsExtraDirs": ["${prefix}/lib/docker/cli-plugins"]`);
  });
});

describe('brain-up.sh: Ollama where the containers reach it', () => {
  const GATEWAY_INSPECT = 'docker network inspect bridge --format {{(index .IPAM.Config 0).Gateway}}';

  it('on Linux asks the docker bridge gateway (host.docker.internal there), not loopback', () => {
    const r = brainUp([], { STUB_BRIDGE_GATEWAY: '172.18.0.1' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls).toContain(GATEWAY_INSPECT);
    expect(r.calls).toContain('curl http://172.18.0.1:11434/api/tags');
    expect(r.calls).not.toContain('curl http://127.0.0.1:11434/api/tags');
    expect(r.stderr).toBe('');
    // No answer from `docker network inspect`: Docker's default bridge address.
    const fallback = brainUp([], { STUB_BRIDGE_GATEWAY: 'none' });
    expect(fallback.calls).toContain('curl http://172.17.0.1:11434/api/tags');
  });

  it('on Linux says when Ollama listens on loopback only, and how to fix it', () => {
    const r = brainUp([], { STUB_OLLAMA: 'loopback' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Ollama answers on 127.0.0.1 but not on 172.17.0.1, the address the containers reach as host.docker.internal');
    expect(r.stderr).toContain('listens on loopback only');
    expect(r.stderr).toContain('OLLAMA_HOST=0.0.0.0:11434');
    expect(r.stderr).toContain('OLLAMA_HOST=172.17.0.1:11434');
    expect(r.stderr).toContain('sudo systemctl edit ollama');
    expect(r.stderr).not.toContain('Ollama is not answering');
  });

  it('on a Mac asks 127.0.0.1 (where colima and Docker Desktop send host.docker.internal)', () => {
    const r = brainUp([], { STUB_UNAME: 'Darwin', STUB_OLLAMA: 'loopback' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls).toContain('curl http://127.0.0.1:11434/api/tags');
    expect(r.calls).not.toContain(GATEWAY_INSPECT);
    expect(r.stderr).toBe('');
  });

  it('hands BRAIN_OLLAMA_URL to the servers and probes that address; a host OLLAMA_URL is not taken', () => {
    expect(readFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), 'utf8')).toContain('    OLLAMA_URL: ${BRAIN_OLLAMA_URL:-http://host.docker.internal:11434}\n');
    const plain = brainUp([], { OLLAMA_URL: 'http://127.0.0.1:11434' });
    expect(plain.calls.find((c) => c.startsWith('env '))).toContain('BRAIN_OLLAMA_URL=http://host.docker.internal:11434');
    const other = brainUp([], { BRAIN_OLLAMA_URL: 'http://gpu-box:11434' });
    expect(other.code, other.stderr).toBe(0);
    expect(other.calls).toContain('curl http://gpu-box:11434/api/tags');
    expect(other.calls).not.toContain(GATEWAY_INSPECT);
    expect(other.calls.find((c) => c.startsWith('env '))).toContain('BRAIN_OLLAMA_URL=http://gpu-box:11434');
    const loop = brainUp([], { BRAIN_OLLAMA_URL: 'http://localhost:11434' });
    expect(loop.stderr).toMatch(/BRAIN_OLLAMA_URL points at http:\/\/localhost:11434; inside a container that is the container itself/);
  });
});

describe("brain-up.sh: readiness tells what search runs on (the servers' /readyz body)", () => {
  const OLLAMA = 'http://host.docker.internal:11434';
  const offline = (): Embedder => ({ model: 'use-lite-512', dimensions: 512, embedDocuments: async () => [], embedQuery: async () => [], health: async () => ({ ok: true }) });
  // The body http.ts sends: { subject, ...checkReadiness() }, with the embedder as embedding.ts reports it.
  const body = (embedder: object) =>
    JSON.stringify({ subject: 'personal', ready: true, role: 'brain_personal', migrations: { missing: [] }, kinds: 9, denyListRules: 4, embedder, problems: [] });
  /** What a server started with BRAIN_EMBEDDER=auto reports, when Ollama answers like this. */
  async function auto(exchange: HttpExchange): Promise<string> {
    const { embedder, reason } = await createEmbedder({ provider: 'auto', ollamaUrl: OLLAMA }, { exchange, offline });
    return body({ state: 'ok', pending: 0, model: embedder.model, detail: reason });
  }
  const refused: HttpExchange = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 172.17.0.1:11434'), { code: 'ECONNREFUSED' });
  };
  const tags = (names: string[]): HttpExchange => async () => ({ status: 200, text: JSON.stringify({ models: names.map((name) => ({ name, model: name })) }) });
  const statusOf = (r: Run, name: string) => r.stdout.match(new RegExp(`^${name}\\s+\\S+\\s+(.*)$`, 'm'))?.[1];

  it('plain "ready" with Ollama; the offline fallback and why, when the servers could not use Ollama', async () => {
    const withOllama = brainUp([], { STUB_READY_BODY: await auto(tags(['nomic-embed-text:latest'])) });
    expect(withOllama.code, withOllama.stderr).toBe(0);
    expect(statusOf(withOllama, 'personal')).toBe('ready');
    expect(withOllama.stderr).toBe('');

    const unreachable = brainUp([], { STUB_READY_BODY: await auto(refused) });
    expect(unreachable.code, unreachable.stderr).toBe(0);
    for (const name of Object.keys(PORTS)) expect(statusOf(unreachable, name)).toBe('ready (keyword + offline embedder; Ollama unreachable)');
    expect(unreachable.stderr).toContain(`the servers could not use Ollama at ${OLLAMA} when they started: personal homelab novel book`);
    expect(unreachable.stderr).toContain('./brain-up.sh --down && ./brain-up.sh');

    const unpulled = brainUp([], { STUB_READY_BODY: await auto(tags(['llama3:latest'])) });
    expect(statusOf(unpulled, 'personal')).toBe('ready (keyword + offline embedder; Ollama lacks the model)');
    expect(unpulled.stderr).toContain('the servers could not use Ollama');
  });

  it('says so when Ollama went away after the servers started with it (the worker retries)', async () => {
    // The worker's lastError is what the embedder threw.
    const error = await new OllamaEmbedder({ url: OLLAMA, model: 'nomic-embed-text', exchange: refused }).embedDocuments(['x']).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(error).toContain('is unreachable');
    const r = brainUp([], { STUB_READY_BODY: body({ state: 'degraded', pending: 3, model: 'nomic-embed-text', detail: error }) });
    expect(r.code, r.stderr).toBe(0);
    expect(statusOf(r, 'novel')).toBe('ready (Ollama unreachable: embedding retries; new cards keyword-only)');
  });

  it('keyword only: embeddings turned off, or no pgvector on the database', async () => {
    const none = startSubjectEmbedding(undefined as never, await chooseEmbedder({ embedder: 'none' } as never), undefined as never).report();
    const off = brainUp([], { STUB_READY_BODY: body(none) });
    expect(off.code, off.stderr).toBe(0);
    expect(statusOf(off, 'book')).toBe('ready (keyword only: embeddings off)');
    const noVectors = brainUp([], { STUB_READY_BODY: body({ state: 'off', pending: 0, model: 'nomic-embed-text', detail: NO_VECTORS }) });
    expect(statusOf(noVectors, 'book')).toBe('ready (keyword only: no pgvector on the database)');
    expect(noVectors.stderr).toBe('');
  });
});

describe('brain-up.sh: when db is what fails', () => {
  it('prints the log of db (not of migrate, which never ran) when db is not healthy', () => {
    const r = brainUp([], { STUB_COMPOSE_UP_RC: '1', STUB_DB_STATE: 'running unhealthy', STUB_MIGRATE_STATE: 'created', STUB_DB_LOG: 'db-1  | FATAL:  could not map anonymous shared memory: Cannot allocate memory' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('docker compose up failed');
    expect(r.stderr).toContain('the database (db) is not healthy (running unhealthy); its log:');
    expect(r.stderr).toContain('could not map anonymous shared memory');
    expect(composeCalls(r).some((c) => c.endsWith(' logs --no-color --tail 60 db'))).toBe(true);
    expect(composeCalls(r).some((c) => c.endsWith(' logs --no-color --tail 60 migrate'))).toBe(false);
    expect(r.stderr).not.toContain('wrong ownership');
  });

  it('prints only the log of migrate when db is healthy and migrate failed', () => {
    const r = brainUp([], { STUB_MIGRATE_EXIT: '3' });
    expect(r.code).toBe(1);
    expect(composeCalls(r).some((c) => c.endsWith(' logs --no-color --tail 60 db'))).toBe(false);
    expect(r.stderr).not.toContain('the database (db) is not healthy');
  });

  it('explains a data directory Postgres will not use, from its log', () => {
    const uid = isRoot ? 1000 : process.getuid!();
    const r = brainUp([], {
      STUB_COMPOSE_UP_RC: '1',
      STUB_DB_STATE: 'restarting ',
      STUB_MIGRATE_STATE: 'created',
      STUB_DB_LOG: 'db-1  | initdb: error: could not change permissions of directory "/var/lib/postgresql/data/pgdata": Operation not permitted',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the database (db) is not healthy (restarting)');
    expect(r.stderr).toContain(`It must belong to the uid the containers run as (${uid}), with mode 0700`);
  });
});

describe('brain-up.sh: whose files, whose volume', () => {
  it('refuses, with the fixes, a volume whose data another uid owns (instead of a db crash loop)', () => {
    const uid = isRoot ? 1000 : process.getuid!();
    const gid = isRoot ? 1000 : process.getgid!();
    const r = brainUp([], { STUB_PGDATA_OWNER: '999 998' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the database in the volume claude-brain-pgdata belongs to uid 999, but the containers would run as uid ${uid}`);
    expect(r.stderr).toContain('run ./brain-up.sh as the user with uid 999');
    expect(r.stderr).toContain('sudo BRAIN_UID=999 BRAIN_GID=998 ./brain-up.sh');
    expect(r.stderr).toContain(`docker run --rm -v claude-brain-pgdata:/v --entrypoint chown pgvector/pgvector:pg17 -R ${uid}:${gid} /v/pgdata`);
    expect(r.calls).toContain('docker run --rm --network none --entrypoint stat -v claude-brain-pgdata:/v pgvector/pgvector:pg17 -c %u %g /v/pgdata');
    expect(r.calls.some((c) => c.includes(' up -d'))).toBe(false);
    const same = brainUp([], { STUB_PGDATA_OWNER: `${uid} ${gid}` });
    expect(same.code, same.stderr).toBe(0);
  });

  it.runIf(isRoot)('run with sudo, hands .brain/ to the user who ran sudo, the containers run as them, and their later run works', () => {
    const dir = project();
    const r = brainUp([], { SUDO_UID: '4242', SUDO_GID: '4343', SUDO_USER: 'someone' }, { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls.find((c) => c.startsWith('env '))).toContain('BRAIN_UID=4242 BRAIN_GID=4343');
    const brain = join(r.project, '.brain');
    for (const path of [brain, join(brain, 'secrets'), ...secretsOf(r).map((s) => s.path)]) {
      expect(statSync(path).uid, path).toBe(4242);
      expect(statSync(path).gid, path).toBe(4343);
    }
    const before = secretsOf(r).map((s) => s.value);
    const later = brainUp([], {}, { dir, uid: 4242, gid: 4343 });
    expect(later.code, later.stderr).toBe(0);
    expect(later.calls.find((c) => c.startsWith('env '))).toContain('BRAIN_UID=4242 BRAIN_GID=4343');
    expect(secretsOf(later).map((s) => s.value)).toEqual(before);
    // sudo from root itself is plain root: the default user 1000, never 0.
    const rootSudo = brainUp([], { SUDO_UID: '0', SUDO_GID: '0' });
    expect(rootSudo.calls.find((c) => c.startsWith('env '))).toContain('BRAIN_UID=1000 BRAIN_GID=1000');
  });

  it.runIf(isRoot)('tells a user whose .brain/ an earlier root run kept how to get it back', () => {
    const dir = project();
    mkdirSync(join(dir, 'proj', '.brain', 'secrets'), { recursive: true, mode: 0o700 });
    const r = brainUp([], {}, { dir, uid: 4242, gid: 4343 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.brain belongs to another user \(uid 0\), likely an earlier run as root; hand it back: sudo chown -R 4242:4343 /);
    expect(r.calls.some((c) => c.includes(' up -d'))).toBe(false);
  });
});

describe('brain-up.sh: the compose file follows subjects.yaml without Node on the host', () => {
  it('regenerates a stale compose file with the renderer inside the image, then starts the new server', () => {
    const dir = project();
    const subjectsFile = join(dir, 'proj', 'subjects.yaml');
    addSubjectToFile(subjectsFile, 'garden');
    const r = brainUp([], {}, { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('docker-compose.yml is out of date with subjects.yaml: regenerating it');
    const st = statSync(r.project);
    const build = r.calls.indexOf(`docker build -t claude-brain:local ${r.project}`);
    const render = r.calls.findIndex((c) => c.startsWith('docker run '));
    expect(build).toBeGreaterThan(-1);
    expect(render).toBeGreaterThan(build);
    expect(r.calls[render]).toBe(
      `docker run --rm --network none --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges --user ${st.uid}:${st.gid} -v ${r.project}:/project --entrypoint node claude-brain:local dist/services/deploy/render-compose.js --dir /project`,
    );
    expect(r.calls.findIndex((c) => c.endsWith(' up -d --remove-orphans'))).toBeGreaterThan(render);
    expect(r.calls.filter((c) => c.startsWith('node '))).toEqual([]);
    expect(readFileSync(join(r.project, 'docker-compose.yml'), 'utf8')).toBe(renderCompose(loadSubjects(subjectsFile)));
    expect(r.stdout).toMatch(/^garden\s+http:\/\/127\.0\.0\.1:7405\/mcp\s+ready$/m);
    expect(existsSync(join(r.project, '.brain', 'secrets', 'brain_garden.password'))).toBe(true);
  });

  it('generates a missing compose file the same way', () => {
    const dir = project();
    rmSync(join(dir, 'proj', 'docker-compose.yml'));
    const r = brainUp([], {}, { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('There is no docker-compose.yml: generating it');
    expect(readFileSync(join(r.project, 'docker-compose.yml'), 'utf8')).toBe(readFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), 'utf8'));
  });

  it('stops, starting nothing, when the image cannot be built or the renderer fails', () => {
    for (const [scenario, message] of [
      [{ STUB_BUILD_RC: '1' }, 'docker build failed, so docker-compose.yml could not be regenerated'],
      [{ STUB_RENDER_RC: '2' }, 'regenerating docker-compose.yml failed'],
    ] as const) {
      const dir = project();
      addSubjectToFile(join(dir, 'proj', 'subjects.yaml'), 'garden');
      const r = brainUp([], scenario, { dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(message);
      expect(composeCalls(r)).toEqual([]);
    }
  });
});

describe('brain-up.sh --external-db proves the database before it touches the servers', () => {
  const brainFiles = (project: string) => [
    ...readdirSync(join(project, '.brain')).map((f) => `.brain/${f}`),
    ...readdirSync(join(project, '.brain', 'secrets')).map((f) => `secrets/${f}`),
  ];

  it('a failing bootstrap: prints its output, leaves no override and no URL behind, exits 1 before up', () => {
    const r = brainUp(['--external-db', '-'], { STUB_MIGRATE_RUN_RC: '1' }, { input: `${EXTERNAL_URL}\n` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the bootstrap against postgres://pg.internal:6543/brainprod?sslmode=require failed (status 1); nothing was changed');
    expect(r.stderr).toContain('the stack keeps using the bundled db container, and the running servers were not touched');
    expect(r.stderr).toContain('the output of migrate:');
    expect(r.stderr).toContain('ECONNREFUSED');
    for (const text of [r.stdout, r.stderr, r.calls.join('\n')]) expect(text).not.toContain('s3cret-pw');
    expect(composeCalls(r).some((c) => / (up|down|stop|restart|rm)( |$)/.test(c.replace(/^.* -f \S+ /, '')))).toBe(false);
    expect(brainFiles(r.project).filter((f) => /external|trial/.test(f))).toEqual([]);
  });

  it('a failing bootstrap keeps the external database in use before, byte for byte', () => {
    const dir = project();
    const first = brainUp(['--external-db', '-'], {}, { dir, input: `${EXTERNAL_URL}\n` });
    expect(first.code, first.stderr).toBe(0);
    const override = join(first.project, '.brain', 'compose.external-db.yml');
    const secret = join(first.project, '.brain', 'secrets', 'external_admin_url');
    const before = [readFileSync(override, 'utf8'), readFileSync(secret, 'utf8')];
    const files = brainFiles(first.project).sort();
    const next = brainUp(['--external-db', '-'], { STUB_MIGRATE_RUN_RC: '1' }, { dir, input: 'postgres://admin:other-pw@pg2.internal:5432/brain\n' });
    expect(next.code).toBe(1);
    expect(next.stderr).toContain('the stack keeps using the external database it used before');
    expect([readFileSync(override, 'utf8'), readFileSync(secret, 'utf8')]).toEqual(before);
    expect(brainFiles(next.project).sort()).toEqual(files);
    expect(next.calls.some((c) => c.includes(' up -d'))).toBe(false);
    for (const text of [next.stdout, next.stderr]) expect(text).not.toContain('other-pw');
  });
});

describe('brain-up.sh portability', () => {
  const text = readFileSync(SCRIPT, 'utf8');

  it('uses nothing newer than bash 3.2 (macOS)', () => {
    // No bash 3.2 here to run it with, so the bash-4-only constructs are looked for instead.
    const bash4 = [/declare -[A-Za-z]*A/, /local -[A-Za-z]*A/, /\bmapfile\b/, /\breadarray\b/, /\$\{\w+(,,|\^\^|,|\^)\}/, /&>>/, /\|&/, /\bcoproc\b/, /(declare|local) -n\b/, /\$\{\w+@[QEPAa]\}/, /;;&/, /\$\{\w+:\s+-\d/];
    for (const re of bash4) expect(text, String(re)).not.toMatch(re);
    // With set -u, bash before 4.4 calls an empty "${a[@]}" unbound: the script uses no arrays.
    expect(text).not.toMatch(/\[@\]|\[\*\]|=\(/);
    expect(text.split('\n')[0]).toBe('#!/usr/bin/env bash');
    expect(text).toContain('set -euo pipefail');
  });

  it('is clean under shellcheck (script and stubs)', (ctx) => {
    const probe = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' });
    if (probe.error) {
      if (process.env.CI) throw new Error('CI must run shellcheck, but it is not installed (.ci/run installs it)');
      console.warn('\n*** shellcheck is not installed: brain-up.sh is NOT linted. apt-get install shellcheck ***\n');
      ctx.skip();
      return;
    }
    const r = spawnSync('shellcheck', [SCRIPT, ...readdirSync(STUBS).map((f) => join(STUBS, f))], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
