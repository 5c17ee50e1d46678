// docker-compose.yml, parsed as compose would (merge keys on): one loopback-only server per
// subject, each holding only its own role's password, and the committed file never drifting
// from what subjects.yaml renders.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { loadSubjects, parseSubjects, type SubjectsConfig } from '../../config/subjects.js';
import { renderCompose, serviceName, VIEW_SERVICE } from '../../services/deploy/compose.js';

interface SecretRef {
  source: string;
  target?: string;
}
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  user?: string;
  ports?: string[];
  secrets?: (string | SecretRef)[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
  read_only?: boolean;
  tmpfs?: string[];
  volumes?: string[];
  extra_hosts?: string[];
  shm_size?: string;
}
interface Compose {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, { name?: string }>;
  secrets: Record<string, { file: string }>;
}

const composeText = readFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), 'utf8');
const subjects = loadSubjects(join(PACKAGE_ROOT, 'subjects.yaml'));
const ADMIN_SECRETS = ['postgres_password', 'brain_admin_url'];

const parseCompose = (text: string): Compose => parse(text, { merge: true }) as Compose;
const secretNames = (s: Service): string[] => (s.secrets ?? []).map((x) => (typeof x === 'string' ? x : x.source));
const subjectServices = (c: Compose, cfg: SubjectsConfig) => cfg.subjects.map((s) => ({ subject: s, service: c.services[serviceName(s)]! }));

describe('docker-compose.yml', () => {
  const compose = parseCompose(composeText);

  it('is exactly what subjects.yaml renders (regenerate with render-compose.js, never edit)', () => {
    expect(composeText).toBe(renderCompose(subjects));
  });

  it('has one server per subject, serving that subject', () => {
    for (const { subject, service } of subjectServices(compose, subjects)) {
      expect(service, subject.name).toBeDefined();
      expect(service.command).toEqual(['serve', '--subject', subject.name]);
      expect(service.image).toBe(compose.services.migrate!.image);
      expect(service.environment?.BRAIN_PORT).toBe(String(subject.port));
      expect(service.environment?.BRAIN_HOST).toBe('0.0.0.0');
      expect(service.environment?.BRAIN_ALLOWED_HOSTS?.split(',')).toContain(serviceName(subject));
      // brain-up.sh exports BRAIN_OLLAMA_URL (default host.docker.internal) for compose to interpolate.
      expect(service.environment?.OLLAMA_URL).toBe('${BRAIN_OLLAMA_URL:-http://host.docker.internal:11434}');
      expect(service.extra_hosts).toContain('host.docker.internal:host-gateway');
    }
    const expected = ['db', 'migrate', VIEW_SERVICE, ...subjects.subjects.map(serviceName)].sort();
    expect(Object.keys(compose.services).sort()).toEqual(expected);
  });

  it('runs the web view as the audit role: its password only, its own port, hardened like the servers', () => {
    const view = compose.services[VIEW_SERVICE]!;
    expect(view.command).toEqual(['view']);
    expect(view.ports).toEqual(['127.0.0.1:7400:7400']);
    expect(secretNames(view)).toEqual([`${subjects.auditRole}_password`]);
    expect(view.environment?.BRAIN_DB_PASSWORD_FILE).toBe(`/run/secrets/${subjects.auditRole}_password`);
    expect(view.environment?.BRAIN_VIEW_PORT).toBe('7400');
    expect(view.environment?.BRAIN_PORT).toBe('7400');
    expect(view.environment?.BRAIN_ALLOWED_HOSTS).toBe(VIEW_SERVICE);
    expect(Object.keys(view.environment ?? {}).filter((k) => /^BRAIN_ADMIN_URL|^POSTGRES_PASSWORD|^BRAIN_SECRETS_DIR$/.test(k))).toEqual([]);
    expect(view.read_only).toBe(true);
    expect(view.volumes).toBeUndefined();
    expect(view.healthcheck?.test).toEqual(['CMD', 'node', 'dist/services/deploy/healthcheck.js', '/readyz']);
  });

  it('publishes every port on 127.0.0.1 only, and the database not at all', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
    expect(compose.services.db!.ports).toBeUndefined();
    for (const { subject, service } of subjectServices(compose, subjects)) {
      expect(service.ports).toEqual([`127.0.0.1:${subject.port}:${subject.port}`]);
    }
  });

  it("hands each server its own role's password and nothing else", () => {
    for (const { subject, service } of subjectServices(compose, subjects)) {
      const own = `${subject.role}_password`;
      expect(secretNames(service), subject.name).toEqual([own]);
      expect(service.environment?.BRAIN_DB_PASSWORD_FILE).toBe(`/run/secrets/${own}`);
      expect(compose.secrets[own]!.file).toBe(`./.brain/secrets/${subject.role}.password`);
    }
  });

  it('gives no server an admin credential', () => {
    for (const { subject, service } of subjectServices(compose, subjects)) {
      expect(secretNames(service).filter((n) => ADMIN_SECRETS.includes(n)), subject.name).toEqual([]);
      const envKeys = Object.keys(service.environment ?? {});
      expect(envKeys.filter((k) => /^BRAIN_ADMIN_URL|^POSTGRES_PASSWORD|^BRAIN_SECRETS_DIR$/.test(k)), subject.name).toEqual([]);
      // Nothing from the host is mounted: no way to reach .brain/secrets but the one secret.
      expect(service.volumes, subject.name).toBeUndefined();
    }
  });

  it('runs the servers hardened: read-only root, tmpfs /tmp, non-root user, restarted unless stopped', () => {
    for (const { subject, service } of subjectServices(compose, subjects)) {
      expect(service.read_only, subject.name).toBe(true);
      expect(service.tmpfs).toContain('/tmp');
      expect(service.restart).toBe('unless-stopped');
      expect(service.user).toBe('${BRAIN_UID:-1000}:${BRAIN_GID:-1000}');
    }
  });

  it('health-checks every long-running service; migrate is a one-shot the servers wait on instead', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'migrate') continue;
      expect(service.healthcheck?.test?.[0], name).toBe('CMD');
      expect(service.healthcheck?.disable, name).toBeUndefined();
    }
    expect(compose.services.db!.healthcheck!.test).toContain('pg_isready');
    for (const { subject, service } of subjectServices(compose, subjects)) {
      expect(service.healthcheck!.test, subject.name).toEqual(['CMD', 'node', 'dist/services/deploy/healthcheck.js', '/readyz']);
      expect(service.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
    }
    // A health check on a process that exits would only ever report "starting", then nothing.
    expect(compose.services.migrate!.healthcheck).toEqual({ disable: true });
    expect(compose.services.migrate!.restart).toBe('no');
  });

  it('runs migrate once db is healthy, with the admin URL and every login role password', () => {
    const migrate = compose.services.migrate!;
    expect(migrate.command).toEqual(['init']);
    expect(migrate.build).toBe('.');
    expect(migrate.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    expect(migrate.environment?.BRAIN_ADMIN_URL_FILE).toBe('/run/secrets/brain_admin_url');
    expect(migrate.environment?.BRAIN_SECRETS_DIR).toBe('/run/secrets');
    expect(migrate.environment?.BRAIN_DATABASE_URL).not.toMatch(/@/);
    const roles = [subjects.auditRole, ...subjects.subjects.map((s) => s.role)];
    expect(migrate.secrets).toEqual([
      'brain_admin_url',
      // init reads <role>.password from BRAIN_SECRETS_DIR (db/secrets.ts), hence the targets.
      ...roles.map((role) => ({ source: `${role}_password`, target: `${role}.password` })),
    ]);
  });

  it('keeps the database in a named volume, its password in a secret file', () => {
    const db = compose.services.db!;
    expect(db.image).toBe('pgvector/pgvector:pg17');
    expect(db.environment?.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    expect(db.environment?.POSTGRES_PASSWORD).toBeUndefined();
    expect(db.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(compose.volumes.pgdata!.name).toBe('claude-brain-pgdata');
    expect(compose.name).toBe('claude-brain');
    // Docker's 64 MB /dev/shm fails parallel HNSW builds at 100k cards (bench/search/latency.ts on PG17).
    expect(db.shm_size).toBe('1gb');
    for (const [name, { file }] of Object.entries(compose.secrets)) expect(file, name).toMatch(/^\.\/\.brain\/secrets\/[\w.]+$/);
  });

  it('adding a subject adds exactly its server and its password secret', () => {
    const text = readFileSync(join(PACKAGE_ROOT, 'subjects.yaml'), 'utf8');
    const bigger = parseSubjects(`${text.trimEnd()}\n  garden:\n    port: 7499\n`, 'subjects.yaml');
    const before = compose;
    const after = parseCompose(renderCompose(bigger));
    const added = <T>(a: Record<string, T>, b: Record<string, T>) => Object.keys(b).filter((k) => !(k in a));
    expect(added(before.services, after.services)).toEqual(['brain-garden']);
    expect(added(before.secrets, after.secrets)).toEqual(['brain_garden_password']);
    expect(after.services['brain-garden']!.ports).toEqual(['127.0.0.1:7499:7499']);
    expect(secretNames(after.services['brain-garden']!)).toEqual(['brain_garden_password']);
    expect(secretNames(after.services.migrate!)).toEqual([...secretNames(before.services.migrate!), 'brain_garden_password']);
    // Every other service is unchanged (migrate gained only the secret checked above).
    const { migrate: _a, ...restBefore } = before.services;
    const { migrate: _b, 'brain-garden': _c, ...restAfter } = after.services;
    expect(restAfter).toEqual(restBefore);
    expect({ ...after.services.migrate, secrets: [] }).toEqual({ ...before.services.migrate, secrets: [] });
  });
});
