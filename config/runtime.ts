// Runtime configuration from the environment: validated once, frozen, and every error
// names the variable. Two shapes of brain:
//  - server:   BRAIN_DATABASE_URL=postgres://HOST:PORT/DB (no credentials in it);
//  - embedded: no BRAIN_DATABASE_URL; PGlite in BRAIN_HOME/data.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { brainHome } from './home.js';
import { PACKAGE_ROOT } from './package.js';
import { ConfigError } from './subjects.js';

export { PACKAGE_ROOT };

const env = z.object({
  BRAIN_HOME: z.string().min(1).optional(),
  BRAIN_CONFIG_DIR: z.string().min(1).optional(),
  BRAIN_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must look like postgres://HOST:PORT/DATABASE').optional(),
  BRAIN_ADMIN_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must look like postgres://USER:PASSWORD@HOST:PORT/DATABASE').optional(),
  BRAIN_ADMIN_URL_FILE: z.string().min(1).optional(),
  BRAIN_SECRETS_DIR: z.string().min(1).optional(),
  BRAIN_DB_PASSWORD_FILE: z.string().min(1).optional(),
  BRAIN_HOST: z.string().min(1).optional(),
  BRAIN_ALLOWED_HOSTS: z.string().min(1).optional(),
  BRAIN_EMBEDDER: z.enum(['auto', 'ollama', 'offline', 'none']).optional(),
  OLLAMA_URL: z.string().url('must be a URL such as http://127.0.0.1:11434').optional(),
  BRAIN_OLLAMA_MODEL: z.string().min(1).optional(),
  BRAIN_PROPOSAL_TTL_MINUTES: z.coerce.number().int().min(1).max(60 * 24 * 30).optional(),
  BRAIN_EMBEDDED_CACHE_MB: z.coerce.number().int().min(16).max(1024).optional(),
  BRAIN_OPEN_DAMAGED: z.enum(['0', '1']).optional(),
  BRAIN_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).optional(),
  BRAIN_EMBEDDED_IDLE_MINUTES: z
    .string()
    .refine((v) => v === 'off' || (/^\d+(\.\d+)?$/.test(v) && Number(v) >= 0.05 && Number(v) <= 24 * 60), 'must be minutes from 0.05 to 1440, or off')
    .transform((v) => (v === 'off' ? ('off' as const) : Number(v)))
    .optional(),
  BRAIN_OAUTH_SUBJECTS: z.string().regex(/^[a-z][a-z0-9_]*(\s*,\s*[a-z][a-z0-9_]*)*$/, 'must be subject names separated by commas, e.g. homelab,novel').optional(),
  BRAIN_PUBLIC_URLS: z.string().min(1).optional(),
  BRAIN_OAUTH_ACCESS_MINUTES: z.coerce.number().int().min(1).max(60).optional(),
  BRAIN_OAUTH_ISSUER: z
    .string()
    .url()
    .refine((u) => u.startsWith('https://') || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(u), 'must be an https URL (http only on loopback)')
    .optional(),
  BRAIN_VIEW_PORT: z.literal('off').or(z.coerce.number().int().min(1024, 'must be a port from 1024 to 65535, or off').max(65535, 'must be a port from 1024 to 65535, or off')).optional(),
});

/**
 * BRAIN_PUBLIC_URLS: `subject=https://name[,subject=https://name]`, each an origin (no path)
 * a tunnel serves that subject at. Only subjects served with OAuth may have one: a public
 * name in front of a subject without OAuth would open it to anyone who finds the name.
 */
function publicUrls(value: string | undefined, oauthSubjects: readonly string[]): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const subject = pair.slice(0, eq).trim();
    let url: URL;
    try {
      url = new URL(pair.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(`BRAIN_PUBLIC_URLS: "${pair}" must be SUBJECT=https://HOST`);
    }
    if (eq < 1 || url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
      throw new ConfigError(`BRAIN_PUBLIC_URLS: "${pair}" must be SUBJECT=https://HOST (https, no path)`);
    }
    if (!oauthSubjects.includes(subject)) throw new ConfigError(`BRAIN_PUBLIC_URLS: ${subject} has a public URL but is not in BRAIN_OAUTH_SUBJECTS; a subject is reachable from outside only with OAuth`);
    out[subject] = url.origin;
  }
  return Object.freeze(out);
}

/**
 * How long an embedded server keeps PGlite open with no request (BRAIN_EMBEDDED_IDLE_MINUTES):
 * as long as the offline model's threads stay (services/embeddings/offline.ts), so a session in
 * use never waits for either, and an idle brain gives back both.
 */
export const DEFAULT_EMBEDDED_IDLE_MINUTES = 5;

/** The web view's port (`brain view`, and `brain up` beside the MCP servers) when BRAIN_VIEW_PORT is unset. */
export const DEFAULT_VIEW_PORT = 7400;

/** The variables loadRuntimeConfig reads; config/environment.ts adds those read elsewhere. */
export const RUNTIME_VARIABLES: readonly string[] = Object.freeze(Object.keys(env.shape));

export interface RuntimeConfig {
  readonly home: string;
  readonly subjectsFile: string;
  readonly kindsFile: string;
  readonly denyListFile: string;
  readonly secretsDir: string;
  readonly mode: 'server' | 'embedded';
  /** Server mode: where the database is (no credentials). */
  readonly databaseUrl: string | undefined;
  /** Embedded mode: the PGlite data directory. */
  readonly dataDir: string;
  /** Embedded mode: PGlite's page cache in MB; undefined sizes it from the data directory (db/embedded.ts). */
  readonly embeddedCacheMb: number | undefined;
  /** BRAIN_OPEN_DAMAGED=1: open an embedded brain whose files look damaged, to save what is left. */
  readonly openDamaged: boolean;
  /** Server mode, one subject per process: a file holding this subject role's password. */
  readonly dbPasswordFile: string | undefined;
  /** Where the MCP servers listen: 127.0.0.1 by default; 0.0.0.0 only inside a container. */
  readonly host: string;
  /** Extra Host header names accepted besides localhost/127.0.0.1/[::1] (e.g. a compose service name). */
  readonly allowedHosts: readonly string[];
  readonly embedder: 'auto' | 'ollama' | 'offline' | 'none';
  readonly ollamaUrl: string;
  readonly ollamaModel: string;
  /** How long a session-close proposal waits for the human before it expires. */
  readonly proposalTtlMinutes: number;
  /** An MCP session with no request and no open stream for this long is closed (default 10). */
  readonly sessionIdleMinutes: number;
  /** Embedded servers: PGlite is closed after this long with no request, and opened again by the next (db/embedded.ts); undefined: never. */
  readonly embeddedIdleMinutes: number | undefined;
  /** Subjects served with OAuth (services/auth/): a token is required on /mcp. */
  readonly oauthSubjects: readonly string[];
  /** The public origin a tunnel serves a subject at, by subject (only OAuth subjects). */
  readonly publicUrls: Readonly<Record<string, string>>;
  /** OAuth access tokens' lifetime (default 10 minutes); refresh tokens rotate. */
  readonly oauthAccessMinutes: number;
  /** An external authorization server (its issuer URL) instead of the built-in one; its tokens are checked against its JWKS. */
  readonly oauthIssuer: string | undefined;
  /** The web view's port (services/view/); undefined: `brain up` starts no view (BRAIN_VIEW_PORT=off). */
  readonly viewPort: number | undefined;
}

export function loadRuntimeConfig(source: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const parsed = env.safeParse(Object.fromEntries(Object.entries(source).filter(([k, v]) => (k.startsWith('BRAIN_') || k === 'OLLAMA_URL') && v !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  const home = brainHome(e.BRAIN_HOME);
  const configDir = resolve(e.BRAIN_CONFIG_DIR ?? PACKAGE_ROOT);
  if (e.BRAIN_DATABASE_URL && new URL(e.BRAIN_DATABASE_URL).password) {
    throw new ConfigError('BRAIN_DATABASE_URL: must not contain a password; each subject role reads its own password file');
  }
  const oauthSubjects = Object.freeze((e.BRAIN_OAUTH_SUBJECTS ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  return Object.freeze({
    home,
    subjectsFile: join(configDir, 'subjects.yaml'),
    kindsFile: join(configDir, 'kinds.yaml'),
    denyListFile: join(configDir, 'deny-list.yaml'),
    secretsDir: resolve(e.BRAIN_SECRETS_DIR ?? join(home, 'secrets')),
    mode: e.BRAIN_DATABASE_URL ? 'server' : 'embedded',
    databaseUrl: e.BRAIN_DATABASE_URL,
    dataDir: join(home, 'data'),
    embeddedCacheMb: e.BRAIN_EMBEDDED_CACHE_MB,
    openDamaged: e.BRAIN_OPEN_DAMAGED === '1',
    dbPasswordFile: e.BRAIN_DB_PASSWORD_FILE,
    host: e.BRAIN_HOST ?? '127.0.0.1',
    allowedHosts: Object.freeze((e.BRAIN_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean)),
    embedder: e.BRAIN_EMBEDDER ?? 'auto',
    ollamaUrl: e.OLLAMA_URL ?? 'http://127.0.0.1:11434',
    ollamaModel: e.BRAIN_OLLAMA_MODEL ?? 'nomic-embed-text',
    proposalTtlMinutes: e.BRAIN_PROPOSAL_TTL_MINUTES ?? 24 * 60,
    sessionIdleMinutes: e.BRAIN_SESSION_IDLE_MINUTES ?? 10,
    embeddedIdleMinutes: e.BRAIN_EMBEDDED_IDLE_MINUTES === 'off' ? undefined : (e.BRAIN_EMBEDDED_IDLE_MINUTES ?? DEFAULT_EMBEDDED_IDLE_MINUTES),
    oauthSubjects,
    publicUrls: publicUrls(e.BRAIN_PUBLIC_URLS, oauthSubjects),
    oauthAccessMinutes: e.BRAIN_OAUTH_ACCESS_MINUTES ?? 10,
    oauthIssuer: e.BRAIN_OAUTH_ISSUER,
    viewPort: e.BRAIN_VIEW_PORT === 'off' ? undefined : (e.BRAIN_VIEW_PORT ?? DEFAULT_VIEW_PORT),
  } satisfies RuntimeConfig);
}

/** The admin connection string, only for init, migrations, subjects and restore. Never logged. */
export function adminUrl(source: NodeJS.ProcessEnv = process.env): string {
  if (source.BRAIN_ADMIN_URL) return source.BRAIN_ADMIN_URL;
  if (source.BRAIN_ADMIN_URL_FILE) return readFileSync(source.BRAIN_ADMIN_URL_FILE, 'utf8').trim();
  throw new ConfigError('BRAIN_ADMIN_URL (or BRAIN_ADMIN_URL_FILE): needed for this command on a server brain; it is the only place the admin password is used');
}
