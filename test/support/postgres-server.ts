// A throwaway real Postgres server for the login-role tests: initdb + pg_ctl from this
// machine, password (SCRAM) authentication, a free loopback port, removed afterwards.
// Postgres refuses to run as root, so as root it runs as the `postgres` OS user.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayServer {
  /** postgres://postgres:PASSWORD@127.0.0.1:PORT/postgres, a superuser. */
  adminUrl: string;
  stop(): void;
}

export function findPostgresBinaries(): string | undefined {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    /* no pg_config on PATH */
  }
  if (existsSync('/usr/lib/postgresql')) {
    for (const v of readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function startThrowawayPostgres(): Promise<ThrowawayServer> {
  const bindir = findPostgresBinaries();
  if (!bindir) throw new Error('no Postgres server binaries (initdb, pg_ctl) on this machine; install Debian\'s postgresql or set BRAIN_TEST_DATABASE_URL');
  const asRoot = process.getuid?.() === 0;
  const root = mkdtempSync(join(tmpdir(), 'brain-pg-'));
  chmodSync(root, 0o700);
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bindir, cmd), ...args]] as const : [join(bindir, cmd), args] as const;
    const r = spawnSync(full[0], [...full[1]], { encoding: 'utf8', cwd: root });
    if (r.status !== 0) throw new Error(`${cmd} failed (exit ${r.status}): ${r.stderr || r.stdout}`);
  };
  const password = randomBytes(18).toString('base64url');
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (uid !== undefined) chownSync(pwfile, uid, gid!);
  const data = join(root, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-instructions']);
  rmSync(pwfile);
  const port = await freePort();
  const opts = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-o', opts, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
