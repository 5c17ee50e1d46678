// Renders docker-compose.yml from subjects.yaml, so the stack always has exactly one server per
// subject and nobody edits the compose file by hand. The text is a template rather than a YAML
// document built node by node: the layout, the comments and the shared anchor are what a person
// reads, and every value put in is a subject name (SUBJECT_NAME: [a-z][a-z0-9_]*) or a port.
import { DEFAULT_VIEW_PORT } from '../../config/runtime.js';
import type { Subject, SubjectsConfig } from '../../config/subjects.js';

export interface RenderOptions {
  /** Where brain-up.sh keeps the secret files, relative to the compose file. */
  readonly secretsDir?: string;
  /** The tag the Dockerfile is built as; never pulled from a registry. */
  readonly image?: string;
}

export const DEFAULT_SECRETS_DIR = './.brain/secrets';
export const DEFAULT_IMAGE = 'claude-brain:local';
/** The compose service of a subject's server: prefixed, so no subject name can clash with db or migrate. */
export const serviceName = (subject: Subject): string => `brain-${subject.name}`;
/** The web view's service (services/view/): not prefixed like a subject's, and no subject is named so. */
export const VIEW_SERVICE = 'view';
/** The compose secret holding a login role's password (mounted as /run/secrets/<this>). */
export const passwordSecret = (role: string): string => `${role}_password`;
/** The file brain-up.sh writes that secret to: the `<role>.password` name db/secrets.ts uses. */
export const passwordFile = (role: string): string => `${role}.password`;

/**
 * The summary line brain-up.sh reads to know the subjects without running node, and compares with
 * what it parses from subjects.yaml, so a hand-edited subjects.yaml is caught before `up`.
 */
export function subjectsLine(config: SubjectsConfig): string {
  return `# brain-up.sh: role_prefix=${config.rolePrefix} subjects=${config.subjects.map((s) => `${s.name}:${s.port}`).join(',')}`;
}

export function renderCompose(config: SubjectsConfig, opts: RenderOptions = {}): string {
  const secrets = opts.secretsDir ?? DEFAULT_SECRETS_DIR;
  const image = opts.image ?? DEFAULT_IMAGE;
  // Every login role init creates gets a password file: the audit role's and each subject's.
  const loginRoles = [config.auditRole, ...config.subjects.map((s) => s.role)];
  const lines = [
    '# GENERATED from subjects.yaml: do not edit by hand. `brain subjects add/remove` rewrites it,',
    '# and so does `node dist/services/deploy/render-compose.js` after subjects.yaml is edited by hand.',
    '# Brought up by ./brain-up.sh (docs/deploy.md). Ports are published on 127.0.0.1 only, and each',
    "# subject's server is handed its own role's password and nothing else.",
    subjectsLine(config),
    '',
    '# Pinned, so the project and its volume keep their names wherever the repo is checked out.',
    'name: claude-brain',
    '',
    'x-subject: &subject',
    `  image: ${image}`,
    '  pull_policy: never # built by the migrate service; never fetched from a registry',
    '  # The host user who owns the 0600 secret files (compose bind-mounts them as they are); brain-up.sh sets it.',
    '  user: "${BRAIN_UID:-1000}:${BRAIN_GID:-1000}"',
    '  restart: unless-stopped',
    '  read_only: true',
    '  tmpfs: [/tmp]',
    '  cap_drop: [ALL]',
    '  security_opt: ["no-new-privileges:true"]',
    '  extra_hosts: ["host.docker.internal:host-gateway"]',
    '  depends_on:',
    '    migrate:',
    '      condition: service_completed_successfully',
    '  healthcheck:',
    '    test: ["CMD", "node", "dist/services/deploy/healthcheck.js", "/readyz"]',
    '    interval: 15s',
    '    timeout: 5s',
    '    retries: 3',
    '    start_period: 30s',
    '  environment: &subject-env',
    '    BRAIN_HOST: 0.0.0.0',
    '    BRAIN_DATABASE_URL: postgres://db:5432/brain',
    '    OLLAMA_URL: ${BRAIN_OLLAMA_URL:-http://host.docker.internal:11434}',
    '    BRAIN_EMBEDDER: auto',
    '    BRAIN_OLLAMA_MODEL: ${BRAIN_OLLAMA_MODEL:-nomic-embed-text}',
    '',
    'services:',
    '  db:',
    '    image: pgvector/pgvector:pg17',
    '    user: "${BRAIN_UID:-1000}:${BRAIN_GID:-1000}"',
    '    restart: unless-stopped',
    '    read_only: true',
    '    tmpfs: [/tmp, /var/run/postgresql]',
    '    # Search reads scattered pages of the cards, the full-text index and the vector index: at',
    '    # 100k cards they pass 600 MB, and the default 128 MB cache doubles search latency',
    '    # (docs/retrieval.md). Set BRAIN_DB_SHARED_BUFFERS in .env to change it.',
    '    command: ["postgres", "-c", "shared_buffers=${BRAIN_DB_SHARED_BUFFERS:-512MB}"]',
    '    # Parallel queries and parallel index builds (pgvector\'s HNSW at 100k cards) share memory',
    '    # through /dev/shm, which Docker caps at 64 MB: past it they fail with "could not resize',
    '    # shared memory segment ... No space left on device". A tmpfs uses only what it holds.',
    '    shm_size: 1gb',
    '    environment:',
    '      POSTGRES_USER: postgres',
    '      POSTGRES_DB: brain',
    '      POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password',
    '      # A subdirectory, so initdb (running as the host user) creates and owns it inside the volume.',
    '      PGDATA: /var/lib/postgresql/data/pgdata',
    '    secrets: [postgres_password]',
    '    volumes: [pgdata:/var/lib/postgresql/data]',
    '    # No ports: only the containers on this network reach the database.',
    '    healthcheck:',
    '      # Over TCP: during first-run initdb the server listens on its socket only, and must not look ready.',
    '      test: ["CMD", "pg_isready", "-h", "127.0.0.1", "-U", "postgres", "-d", "brain"]',
    '      interval: 5s',
    '      timeout: 5s',
    '      retries: 12',
    '      start_period: 30s',
    '',
    '  # One-shot bootstrap: roles (with the passwords below), schemas, grants, migrations, kinds, deny-list.',
    '  # No health check: it is not a server; the servers wait for it to exit 0.',
    '  migrate:',
    '    build: .',
    `    image: ${image}`,
    '    command: ["init"]',
    '    user: "${BRAIN_UID:-1000}:${BRAIN_GID:-1000}"',
    '    restart: "no"',
    '    read_only: true',
    '    tmpfs: [/tmp]',
    '    cap_drop: [ALL]',
    '    security_opt: ["no-new-privileges:true"]',
    '    healthcheck:',
    '      disable: true',
    '    depends_on:',
    '      db:',
    '        condition: service_healthy',
    '    environment:',
    '      BRAIN_DATABASE_URL: postgres://db:5432/brain',
    '      BRAIN_ADMIN_URL_FILE: /run/secrets/brain_admin_url',
    '      # init reads each role password from <role>.password here (the targets below).',
    '      BRAIN_SECRETS_DIR: /run/secrets',
    '    secrets:',
    '      - brain_admin_url',
    ...loginRoles.flatMap((role) => [`      - source: ${passwordSecret(role)}`, `        target: ${passwordFile(role)}`]),
    ...config.subjects.flatMap((s) => ['', ...subjectService(s)]),
    '',
    ...viewService(config),
    '',
    'volumes:',
    '  pgdata:',
    '    # Named explicitly: brain-up.sh never removes it (`down` without -v).',
    '    name: claude-brain-pgdata',
    '',
    'secrets:',
    '  postgres_password:',
    `    file: ${secrets}/postgres_password`,
    '  brain_admin_url:',
    `    file: ${secrets}/admin_url`,
    ...loginRoles.flatMap((role) => [`  ${passwordSecret(role)}:`, `    file: ${secrets}/${passwordFile(role)}`]),
  ];
  return `${lines.join('\n')}\n`;
}

/** The read-only web view, as the audit role: handed that role's password and nothing else. */
function viewService(config: SubjectsConfig): string[] {
  const port = DEFAULT_VIEW_PORT;
  return [
    "  # The read-only web view (docs/view.md): reads every subject as the audit role, never writes.",
    `  ${VIEW_SERVICE}:`,
    '    <<: *subject',
    '    command: ["view"]',
    `    ports: ["127.0.0.1:${port}:${port}"]`,
    `    secrets: [${passwordSecret(config.auditRole)}]`,
    '    environment:',
    '      <<: *subject-env',
    `      BRAIN_PORT: "${port}"`,
    `      BRAIN_VIEW_PORT: "${port}"`,
    `      BRAIN_ALLOWED_HOSTS: ${VIEW_SERVICE}`,
    `      BRAIN_DB_PASSWORD_FILE: /run/secrets/${passwordSecret(config.auditRole)}`,
  ];
}

function subjectService(s: Subject): string[] {
  const name = serviceName(s);
  return [
    `  ${name}:`,
    '    <<: *subject',
    `    command: ["serve", "--subject", "${s.name}"]`,
    `    ports: ["127.0.0.1:${s.port}:${s.port}"]`,
    `    secrets: [${passwordSecret(s.role)}]`,
    '    environment:',
    '      <<: *subject-env',
    `      BRAIN_PORT: "${s.port}"`,
    `      BRAIN_ALLOWED_HOSTS: ${name}`,
    `      BRAIN_DB_PASSWORD_FILE: /run/secrets/${passwordSecret(s.role)}`,
  ];
}
