// The compose stack as a user runs it: ./brain-up.sh, then real MCP clients on the published
// ports, `docker inspect` of the running containers, and psql inside the db container.
// test/stack/run.sh brings the stack up first in a scratch copy of the project and takes it
// down afterwards; the steps here run in order and build on each other.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectClient } from '../support/mcp.js';
import { brainUp, callTool, container, DIR, docker, onFreshSocket, portOf, psql, run, subjects, until } from './stack.js';

const ORIGINAL = ['personal', 'homelab', 'novel', 'book'];
const EXTERNAL_DB = 'claude-brain-test-extdb';

async function readyz(subject: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await onFreshSocket(() => fetch(`http://127.0.0.1:${portOf(subject)}/readyz`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function inspect(name: string): { Mounts: { Destination: string; Source: string }[]; Config: { Env: string[]; User: string }; HostConfig: { ReadonlyRootfs: boolean; PortBindings: Record<string, { HostIp: string }[]> } } {
  const r = docker('inspect', name);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0];
}

describe('[postgres] the compose stack on PostgreSQL 17 + pgvector', () => {
  it('has every server ready, each with its own role', async () => {
    expect(subjects().map((s) => s.name)).toEqual(ORIGINAL);
    for (const subject of ORIGINAL) {
      const { status, body } = await readyz(subject);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ subject, ready: true, role: `brain_${subject}` });
    }
    expect(psql("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).toMatch(/^0\.\d+\.\d+$/);
    expect(psql('SHOW server_version')).toMatch(/^17\./);
  });

  it('serves a real MCP client: initialize, tools/list, remember, and search in every mode, with vectors on pgvector', async () => {
    const client = await connectClient(`http://127.0.0.1:${portOf('homelab')}/mcp`);
    expect(client.getServerVersion()?.name).toBeTruthy();
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['remember', 'search', 'get']));
    await client.close();

    const saved = await callTool('homelab', 'remember', {
      kind: 'environment',
      title: 'NAS backup rotation',
      body: 'Restic snapshots of the Synology NAS run nightly at 02:00; seven daily and four weekly snapshots are kept.',
    });
    expect(saved).toMatch(/environment\/nas-backup-rotation|nas-backup-rotation/);
    // The embedding worker writes the card's vectors into pgvector (no Ollama here: the offline embedder).
    const chunks = await until('the card\'s vectors', () => {
      const n = Number(psql("SELECT count(*) FROM homelab.chunks c JOIN homelab.topics t ON t.id = c.topic_id WHERE t.title = 'NAS backup rotation'"));
      return n > 0 ? n : undefined;
    });
    expect(chunks).toBeGreaterThan(0);
    expect(Number(psql("SELECT count(*) FROM homelab.chunks WHERE brain_ext.vector_dims(embedding) = dims AND dims > 0"))).toBeGreaterThan(0);

    // No word in common with the card: only the vectors can find it.
    const paraphrase = 'how often are copies of the storage appliance archived';
    expect(await callTool('homelab', 'search', { query: paraphrase, mode: 'keyword' })).not.toContain('NAS backup rotation');
    expect(await callTool('homelab', 'search', { query: paraphrase, mode: 'semantic' })).toContain('NAS backup rotation');
    expect(await callTool('homelab', 'search', { query: 'restic snapshots nightly', mode: 'hybrid' })).toContain('NAS backup rotation');
    expect(await callTool('homelab', 'search', { query: paraphrase, mode: 'hybrid' })).toContain('NAS backup rotation');
  });

  it('keeps subjects apart: homelab cannot see novel\'s card, personal cannot see homelab\'s', async () => {
    await callTool('novel', 'remember', { kind: 'character', title: 'Marsh ferrywoman', body: 'She poles the zephyrquill barge across the salt marsh at dusk.' });
    expect(psql("SELECT count(*) FROM novel.topics WHERE title = 'Marsh ferrywoman'")).toBe('1');
    for (const mode of ['keyword', 'semantic', 'hybrid']) {
      expect(await callTool('homelab', 'search', { query: 'zephyrquill barge ferrywoman', mode })).not.toContain('Marsh ferrywoman');
      expect(await callTool('personal', 'search', { query: 'restic NAS backup rotation', mode })).not.toContain('NAS backup rotation');
    }
    await expect(callTool('homelab', 'get', { slug: 'character/marsh-ferrywoman' })).rejects.toThrow(/not.found|no card|not_found/i);
  });

  it('gives each server container exactly its own secret, no admin credentials, loopback ports, a read-only root, no root user', () => {
    const secrets = join(DIR, '.brain', 'secrets');
    for (const subject of ORIGINAL) {
      const name = container(`brain-${subject}`);
      const info = inspect(name);
      const mounted = info.Mounts.map((m) => m.Destination).filter((d) => d.startsWith('/run/secrets'));
      expect(mounted, name).toEqual([`/run/secrets/brain_${subject}_password`]);
      const listed = docker('exec', name, 'ls', '-A', '/run/secrets');
      expect(listed.stdout.trim().split('\n'), name).toEqual([`brain_${subject}_password`]);
      // The same password as the host's file, compared by hash so it is never printed.
      const inside = docker('exec', name, 'sha256sum', `/run/secrets/brain_${subject}_password`).stdout.split(' ')[0];
      const host = createHash('sha256').update(readFileSync(join(secrets, `brain_${subject}.password`))).digest('hex');
      expect(inside, name).toBe(host);
      const env = info.Config.Env.join('\n');
      expect(env).toContain(`BRAIN_DB_PASSWORD_FILE=/run/secrets/brain_${subject}_password`);
      expect(env).not.toMatch(/ADMIN_URL|POSTGRES_PASSWORD|postgres:\/\/[^/\s]*@/);
      // Not even a file of another role's or the admin's is reachable.
      expect(docker('exec', name, 'sh', '-c', 'cat /run/secrets/admin_url /run/secrets/brain_admin_url /run/secrets/postgres_password 2>/dev/null').stdout).toBe('');
      expect(info.HostConfig.ReadonlyRootfs).toBe(true);
      expect(info.Config.User).not.toMatch(/^(0|root)?(:|$)/);
      const bindings = Object.values(info.HostConfig.PortBindings).flat();
      expect(bindings.length).toBeGreaterThan(0);
      for (const b of bindings) expect(b.HostIp).toBe('127.0.0.1');
    }
    // The database publishes nothing.
    expect(Object.keys(inspect(container('db')).HostConfig.PortBindings ?? {})).toEqual([]);
  });

  it('rides out a database restart: the same server processes answer once db is back', async () => {
    const started = (subject: string) => {
      const r = docker('inspect', '--format', '{{.State.StartedAt}} {{.RestartCount}}', container(`brain-${subject}`));
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    const before = ORIGINAL.map(started);
    const restarted = docker('restart', container('db'));
    expect(restarted.code, restarted.stderr).toBe(0);
    await until('db healthy again', () => (docker('inspect', '--format', '{{.State.Health.Status}}', container('db')).stdout.trim() === 'healthy' ? true : undefined), 120);
    for (const subject of ORIGINAL) {
      const answer = await until(`${subject} answering after the restart`, async () => {
        try {
          return await callTool(subject, 'search', { query: 'backup rotation', mode: 'keyword' });
        } catch {
          return undefined;
        }
      }, 60);
      expect(answer).toBeTypeOf('string');
      expect((await readyz(subject)).status).toBe(200);
    }
    await callTool('homelab', 'remember', { kind: 'environment', title: 'NAS backup rotation', body: 'Still written after the database restart.' });
    expect(psql("SELECT count(*) FROM homelab.topics WHERE body LIKE '%after the database restart%'")).toBe('1');
    // Reconnected, not restarted by Docker: the same processes, no restarts counted.
    expect(ORIGINAL.map(started)).toEqual(before);
  });

  it('keeps the data across ./brain-up.sh --down and up', async () => {
    const down = brainUp(['--down']);
    expect(down.code, down.stderr).toBe(0);
    expect(docker('ps', '-q', '--filter', 'label=com.docker.compose.project=claude-brain').stdout.trim()).toBe('');
    expect(docker('volume', 'inspect', 'claude-brain-pgdata').code).toBe(0);
    const up = brainUp();
    expect(up.code, up.stderr).toBe(0);
    for (const subject of ORIGINAL) expect(up.stdout).toMatch(new RegExp(`^${subject}\\s+\\S+\\s+ready`, 'm'));
    expect(await callTool('homelab', 'get', { slug: 'environment/nas-backup-rotation' })).toContain('seven daily and four weekly');
  });

  it('brings a fifth server with `brain subjects add garden` and ./brain-up.sh', async () => {
    const add = run(process.execPath, [join(DIR, 'dist/cli/brain.js'), 'subjects', 'add', 'garden'], { env: { BRAIN_CONFIG_DIR: DIR, BRAIN_HOME: join(DIR, '.brain') } });
    expect(add.code, add.stderr).toBe(0);
    expect(subjects().map((s) => s.name)).toEqual([...ORIGINAL, 'garden']);
    const up = brainUp();
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(new RegExp(`^garden\\s+http://127\\.0\\.0\\.1:${portOf('garden')}/mcp\\s+ready`, 'm'));
    expect((await readyz('garden')).body).toMatchObject({ ready: true, role: 'brain_garden' });
    await callTool('garden', 'remember', { kind: 'methodology', title: 'Tomato pruning', body: 'Pinch the side shoots weekly.' });
    expect(await callTool('garden', 'search', { query: 'NAS backup rotation restic' })).not.toContain('NAS backup rotation');
    expect(docker('exec', container('brain-garden'), 'ls', '-A', '/run/secrets').stdout.trim()).toBe('brain_garden_password');
  });

  it('moves to an external database with --external-db, and back', async () => {
    // A second PostgreSQL 17 + pgvector, reached by the stack's containers on its network.
    const password = createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24);
    docker('rm', '-f', EXTERNAL_DB);
    const started = docker('run', '-d', '--name', EXTERNAL_DB, '--network', 'claude-brain_default', '--network-alias', 'extdb', '-e', `POSTGRES_PASSWORD=${password}`, '-e', 'POSTGRES_DB=brain', 'pgvector/pgvector:pg17');
    expect(started.code, started.stderr).toBe(0);
    try {
      await until('the external database', () => (docker('exec', EXTERNAL_DB, 'pg_isready', '-h', '127.0.0.1', '-U', 'postgres').code === 0 ? true : undefined), 90);
      const moved = brainUp(['--external-db', '-'], `postgres://postgres:${password}@extdb:5432/brain\n`);
      expect(moved.code, moved.stderr).toBe(0);
      expect(`${moved.stdout}${moved.stderr}`).not.toContain(password);
      expect(docker('ps', '-q', '--filter', `name=${container('db')}`).stdout.trim()).toBe('');
      for (const s of [...ORIGINAL, 'garden']) expect((await readyz(s)).body).toMatchObject({ ready: true });
      await callTool('homelab', 'remember', { kind: 'environment', title: 'External database host', body: 'The brain now lives on the shared database server.' });
      expect(psql("SELECT count(*) FROM homelab.topics WHERE title = 'External database host'", EXTERNAL_DB)).toBe('1');
      expect(psql("SELECT count(*) FROM homelab.topics WHERE title = 'NAS backup rotation'", EXTERNAL_DB)).toBe('0');

      // Back to the bundled database: delete the override, run it again.
      rmSync(join(DIR, '.brain', 'compose.external-db.yml'));
      const back = brainUp();
      expect(back.code, back.stderr).toBe(0);
      expect(await callTool('homelab', 'get', { slug: 'environment/nas-backup-rotation' })).toContain('seven daily');
      expect(psql("SELECT count(*) FROM homelab.topics WHERE title = 'External database host'")).toBe('0');
    } finally {
      docker('rm', '-f', EXTERNAL_DB);
    }
  });

  it('restores a backup taken from the stack into an empty one', async () => {
    const backup = brainUp(['--backup']);
    expect(backup.code, backup.stderr).toBe(0);
    const file = /(\S+\.jsonl\.gz)/.exec(backup.stdout)?.[1];
    expect(file, backup.stdout).toBeTruthy();
    const onHost = file!.startsWith('/') ? file! : join(DIR, file!);
    expect(existsSync(onHost)).toBe(true);

    // A new machine: the same project folder and secrets, an empty database volume.
    expect(brainUp(['--down']).code).toBe(0);
    const removed = docker('volume', 'rm', 'claude-brain-pgdata');
    expect(removed.code, removed.stderr).toBe(0);
    const fresh = brainUp();
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(psql('SELECT count(*) FROM homelab.topics')).toBe('0');

    const restore = brainUp(['--restore', onHost]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(await callTool('homelab', 'get', { slug: 'environment/nas-backup-rotation' })).toContain('seven daily');
    expect(psql("SELECT count(*) FROM novel.topics WHERE title = 'Marsh ferrywoman'")).toBe('1');
    expect(psql("SELECT count(*) FROM garden.topics WHERE title = 'Tomato pruning'")).toBe('1');
    // Every server still works on the restored data, writes included.
    await callTool('homelab', 'remember', { kind: 'environment', title: 'NAS backup rotation', body: 'Checked after the restore.' });
    expect(await callTool('homelab', 'get', { slug: 'environment/nas-backup-rotation' })).toContain('Checked after the restore');
  });
});
