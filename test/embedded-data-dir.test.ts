// The embedded brain opens only a data directory that is a complete brain of its own
// (db/data-dir.ts): a lost PG_VERSION, an unmounted data volume beside its secrets, or a
// damaged pg_control is refused with the folder, what is wrong and how to recover, never
// answered by a fresh empty brain. Also the data lock: a PID reused by another program is
// a stale lock, a live brain's lock is named. Runs the built CLI as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../db/embedded.js';
import { BRAIN_JS, runBrain, scratchConfigDir } from './support/cli.js';

/** Every file under `dir` with its size and modification time, to show nothing was touched. */
function listing(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = join(prefix, e.name);
      if (e.isDirectory()) return [`${rel}/`, ...listing(dir, rel)];
      const s = statSync(join(dir, rel));
      return [`${rel} ${s.size} ${s.mtimeMs}`];
    })
    .sort();
}

describe('[pglite] the embedded data directory must be a brain of its own (CLI)', () => {
  const dirs: string[] = [];
  const temp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  const children: ChildProcess[] = [];
  let configDir: string;
  let base: string;
  let first: ReturnType<typeof runBrain>;
  const env = (home: string) => ({ BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none', BRAIN_SUBJECT: 'homelab' });
  /** A copy of the brain made in beforeAll, in a BRAIN_HOME of its own. */
  const copyOfBase = () => {
    const home = temp('brain-copy-');
    cpSync(base, home, { recursive: true });
    return home;
  };

  beforeAll(() => {
    configDir = scratchConfigDir();
    dirs.push(configDir);
    // A fresh BRAIN_HOME, no data and no secrets: any command makes the brain, as `npm start` does on its first run.
    base = temp('brain-base-');
    first = runBrain(['remember', '--kind', 'environment', '--title', 'NAS', '--slug', 'env/nas'], env(base), 'ZFS mirror');
  }, 300_000);
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it('a fresh BRAIN_HOME (no data, no secrets) makes a new brain and marks it', () => {
    expect(first.code, first.stderr).toBe(0);
    const marker = JSON.parse(readFileSync(join(base, 'data', 'claude-brain.json'), 'utf8'));
    expect(marker).toMatchObject({ format: 1 });
    expect(marker.brainId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(marker.createdAt))).toBe(false);
    expect(existsSync(join(base, 'data', 'PG_VERSION'))).toBe(true);
    expect(statSync(join(base, 'data', 'global', 'pg_control')).size).toBe(8192);
  });

  it('a missing PG_VERSION is refused, naming the file and the recovery, and nothing is touched', () => {
    const home = copyOfBase();
    const data = join(home, 'data');
    rmSync(join(data, 'PG_VERSION'));
    const before = listing(data);
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain('Cards');
    expect(r.stderr).toContain(data);
    expect(r.stderr).toContain('PG_VERSION is missing');
    expect(r.stderr).toContain('brain restore FILE');
    expect(r.stderr).toContain('brain init');
    expect(listing(data)).toEqual(before);
  });

  it('an empty data directory beside existing secrets is refused (an unmounted volume)', () => {
    const home = temp('brain-unmounted-');
    mkdirSync(join(home, 'data'));
    mkdirSync(join(home, 'secrets'));
    writeFileSync(join(home, 'secrets', 'brain_homelab.token'), 'x\n');
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${join(home, 'data')} is missing or empty but ${join(home, 'secrets')} exists`);
    expect(r.stderr).toContain('--init');
    expect(readdirSync(join(home, 'data'))).toEqual([]);
  });

  it('an absent data directory beside existing secrets is refused; --init then makes the new brain', { timeout: 300_000 }, () => {
    const home = temp('brain-nodata-');
    mkdirSync(join(home, 'secrets'));
    writeFileSync(join(home, 'secrets', 'brain_homelab.token'), 'x\n');
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('this looks like a brain whose data is not mounted');
    expect(existsSync(join(home, 'data'))).toBe(false);
    // `brain serve --init` (stdin closed at once, so it stops after opening).
    const s = runBrain(['serve', '--stdio', '--init', '--subject', 'homelab'], env(home), '');
    expect(s.code, s.stderr).toBe(0);
    expect(existsSync(join(home, 'data', 'claude-brain.json'))).toBe(true);
    const stats = runBrain(['stats'], env(home));
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/Cards\s+0/);
  });

  it('`brain init` makes a new brain where the data is absent beside secrets', { timeout: 300_000 }, () => {
    const home = temp('brain-init-');
    mkdirSync(join(home, 'secrets'));
    writeFileSync(join(home, 'secrets', 'brain_homelab.token'), 'x\n');
    const r = runBrain(['init'], env(home));
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(home, 'data', 'claude-brain.json'))).toBe(true);
  });

  it('a truncated global/pg_control is refused with a clear message, not Aborted()', () => {
    const home = copyOfBase();
    const control = join(home, 'data', 'global', 'pg_control');
    writeFileSync(control, readFileSync(control).subarray(0, 100));
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(join(home, 'data'));
    expect(r.stderr).toContain('global/pg_control is damaged (100 bytes, not 8192)');
    expect(r.stderr).toContain('brain restore FILE');
    expect(r.stderr).not.toContain('Aborted');
  });

  it('a pg_control of the right size but garbage: PGlite fails to start, and that is named with the folder', () => {
    const home = copyOfBase();
    writeFileSync(join(home, 'data', 'global', 'pg_control'), Buffer.alloc(8192));
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`the embedded brain in ${join(home, 'data')} could not be opened`);
    expect(r.stderr).toContain('its files look damaged');
    expect(r.stderr).toContain('brain restore FILE');
    expect(r.stderr).not.toContain('Aborted()');
  });

  it('a table file truncated while the brain was closed is refused, naming the table, its file and the recovery; BRAIN_OPEN_DAMAGED=1 opens it', () => {
    const home = copyOfBase();
    const data = join(home, 'data');
    // The CLI closed the brain cleanly: the snapshot of its files is there.
    const snapshot = JSON.parse(readFileSync(join(data, 'claude-brain-files.json'), 'utf8')) as { files: Record<string, { name: string; bytes: number }> };
    const entries = Object.entries(snapshot.files);
    expect(entries.length).toBeGreaterThan(50);
    const [path, topics] = entries.find(([, f]) => f.name === 'homelab.topics')!;
    expect(topics.bytes).toBeGreaterThan(0);
    truncateSync(join(data, path), 0);
    const before = listing(data);
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain('Cards');
    expect(r.stderr).toContain(`is damaged: homelab.topics (file ${join(data, path)}) has 0 bytes; it had ${topics.bytes.toLocaleString('en')} when the brain last closed`);
    expect(r.stderr).toContain('brain restore FILE');
    expect(r.stderr).toContain('BRAIN_OPEN_DAMAGED=1');
    // Refused before the database opened: not one file touched.
    expect(listing(data)).toEqual(before);
    // Opened anyway, on purpose: what is left can be saved.
    const anyway = runBrain(['stats'], { ...env(home), BRAIN_OPEN_DAMAGED: '1' });
    expect(anyway.code, anyway.stderr).toBe(0);
    expect(anyway.stdout).toMatch(/Cards\s+0/);
  });

  it('with no snapshot (after a crash), a file shorter than the database records for it is refused', () => {
    const home = copyOfBase();
    const data = join(home, 'data');
    const snapshot = JSON.parse(readFileSync(join(data, 'claude-brain-files.json'), 'utf8')) as { files: Record<string, { name: string; bytes: number }> };
    // A btree index has its metapage from CREATE INDEX on, and pg_class records it.
    const [path] = Object.entries(snapshot.files).find(([, f]) => f.name === 'homelab.topics_pkey')!;
    rmSync(join(data, 'claude-brain-files.json'));
    truncateSync(join(data, path), 0);
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`is damaged: index homelab.topics_pkey (file ${join(data, path)}) has 0 bytes, but the database recorded 1 page (8 kB) for it`);
    expect(r.stderr).toContain('brain restore FILE');
  });

  it('a clean brain opens with its snapshot checked and leaves a fresh one when it closes', () => {
    const home = copyOfBase();
    const file = join(home, 'data', 'claude-brain-files.json');
    const before = readFileSync(file, 'utf8');
    const r = runBrain(['remember', '--kind', 'environment', '--title', 'Router', '--slug', 'env/router'], env(home), 'OpenWrt');
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toEqual(before);
    expect(runBrain(['stats'], env(home)).stdout).toMatch(/Cards\s+2/);
  });

  it('a brain of an older version (no marker) is adopted: it opens, and the marker is written once', () => {
    const home = copyOfBase();
    rmSync(join(home, 'data', 'claude-brain.json'));
    const r = runBrain(['stats'], env(home));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Cards\s+1/);
    const marker = JSON.parse(readFileSync(join(home, 'data', 'claude-brain.json'), 'utf8'));
    expect(marker).toMatchObject({ format: 1 });
    expect(marker.adoptedAt).toBeTypeOf('string');
    expect(runBrain(['stats'], env(home)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, 'data', 'claude-brain.json'), 'utf8'))).toEqual(marker);
  });

  it('a PostgreSQL data directory that holds no brain is refused, not bootstrapped', async () => {
    const home = temp('brain-foreign-');
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    await db.close();
    const r = runBrain(['stats'], env(home));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no claude-brain.json, no brain schema');
    expect(existsSync(join(home, 'data', 'claude-brain.json'))).toBe(false);
  });

  it('a lock whose PID now belongs to another program is stale: cleared with a warning, and the brain starts', async () => {
    const home = copyOfBase();
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper);
    const lock = join(home, 'data.lock');
    writeFileSync(lock, String(sleeper.pid));
    const r = runBrain(['stats'], env(home));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Cards\s+1/);
    expect(r.stderr).toContain(`removed the stale lock ${lock}: its process ${sleeper.pid}`);
    expect(existsSync(lock)).toBe(false);
    sleeper.kill('SIGKILL');
  });

  it('brain down never signals the program that now holds a stale lock\'s PID', async () => {
    const home = copyOfBase();
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper);
    const lock = join(home, 'data.lock');
    writeFileSync(lock, String(sleeper.pid));
    const r = runBrain(['down'], env(home));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`stale lock ${lock} of process ${sleeper.pid}`);
    // Still running: had it been signalled, its exit would be seen within this wait.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sleeper.signalCode).toBeNull();
    expect(sleeper.exitCode).toBeNull();
    sleeper.kill('SIGKILL');
  });

  it('a live brain shares its data directory with subject commands (its database link); one needing the directory itself is refused, naming the lock file, the PID, the command and `brain down`', async () => {
    const home = copyOfBase();
    const lock = join(home, 'data.lock');
    const child = spawn(process.execPath, [BRAIN_JS, 'serve', '--stdio', '--subject', 'homelab'], { env: { PATH: process.env.PATH ?? '', ...env(home) }, stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    await expect.poll(() => existsSync(lock) && readFileSync(lock, 'utf8').trim(), { timeout: 60_000 }).toBe(String(child.pid));
    const shared = runBrain(['stats'], env(home));
    expect(shared.code, shared.stderr).toBe(0);
    expect(shared.stdout).toMatch(/Cards\s+1/);
    const r = runBrain(['init'], env(home));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`in use by process ${child.pid} (lock file ${lock}), \`brain serve --stdio --subject homelab\``);
    expect(r.stderr).toContain('brain down');
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(home, 'running.json'))).toBe(false);
  });
});
