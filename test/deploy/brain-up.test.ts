// brain-up.sh, run with bash in a scratch copy of the project, against stub docker, colima and
// curl (test/fixtures/deploy/bin) that record every call and answer as each scenario says.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { addSubjectToFile } from '../../config/subjects.js';
import { writeComposeFile } from '../../services/deploy/compose-file.js';

const SCRIPT = join(PACKAGE_ROOT, 'brain-up.sh');
const STUBS = join(PACKAGE_ROOT, 'test/fixtures/deploy/bin');
const PORTS = { personal: 7401, homelab: 7402, novel: 7403, book: 7404 };

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

function brainUp(args: string[], scenario: Record<string, string> = {}, opts: { dir?: string; stubs?: string[]; input?: string } = {}): Run {
  const dir = opts.dir ?? project();
  const bin = existsSync(join(dir, 'bin')) ? join(dir, 'bin') : stubBin(dir, opts.stubs ?? ['docker', 'curl', 'colima']);
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  const r = spawnSync('bash', [join(dir, 'proj', 'brain-up.sh'), ...args], {
    encoding: 'utf8',
    input: opts.input ?? '',
    timeout: 30_000,
    env: {
      // The stubs first; the system's awk, sed, od and friends after. No real docker is reached.
      PATH: `${bin}:/usr/bin:/bin`,
      HOME: dir,
      STUB_LOG: log,
      STUB_STATE: join(dir, 'state'),
      BRAIN_UP_TIMEOUT: '1',
      BRAIN_UP_POLL: '0.1',
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

  it('fails with advice when Docker is not answering and there is no colima', () => {
    const r = brainUp([], { STUB_DOCKER: 'down' }, { stubs: ['docker', 'curl'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Docker is not answering.*install colima/);
    expect(composeCalls(r)).toEqual([]);
  });

  it('warns, with the fix, when Ollama is down, and carries on', () => {
    const r = brainUp([], { STUB_OLLAMA: 'down' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Ollama is not answering on http:\/\/127\.0\.0\.1:11434: search will be keyword-only/);
    expect(r.stderr).toContain('ollama serve');
    expect(r.stderr).toContain('ollama pull nomic-embed-text');
    expect(r.calls.some((c) => c.includes(' up -d'))).toBe(true);
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
    expect(compose[0]).toMatch(/ down --remove-orphans$/);
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
    for (const c of composeCalls(r)) expect(c).toContain('-f ' + join(r.project, '.brain', 'compose.external-db.yml'));
    expect(brainUp(['--external-db', 'postgres://nocredentials:5432/x']).stderr).toMatch(/wants the admin URL/);
  });

  it('refuses to start when subjects.yaml changed and the compose file was not regenerated', () => {
    const dir = project();
    addSubjectToFile(join(dir, 'proj', 'subjects.yaml'), 'garden');
    const stale = brainUp([], {}, { dir });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('docker-compose.yml is out of date with subjects.yaml');
    expect(composeCalls(stale)).toEqual([]);
    // Regenerated (what `brain subjects add` does), the new subject's server is started and checked.
    writeComposeFile(join(dir, 'proj', 'subjects.yaml'));
    const fresh = brainUp([], {}, { dir });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/^garden\s+http:\/\/127\.0\.0\.1:7405\/mcp\s+ready$/m);
    expect(existsSync(join(dir, 'proj', '.brain', 'secrets', 'brain_garden.password'))).toBe(true);
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
