// Starting the web view: by `brain view` on its own, and by `brain up` beside the MCP servers.
// It connects as the audit role only (audit-db.ts): in the embedded brain on the process's
// PGlite under SET LOCAL ROLE, on a server with the audit role's own password (the secrets
// folder, or BRAIN_DB_PASSWORD_FILE in its compose container), never a subject's or the admin's.
import type { Kind } from '../../config/kinds.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../../config/runtime.js';
import { ConfigError, type SubjectsConfig } from '../../config/subjects.js';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { SecretStore } from '../../db/secrets.js';
import { parseServerUrl } from '../../db/subject-db.js';
import type { Embedder } from '../embeddings/embedder.js';
import { buildViewApp, type ViewApp } from './app.js';
import { openEmbeddedAuditDb, openServerAuditDb, type AuditDb } from './audit-db.js';
import { createViewContext } from './context.js';
import { prepareOverview } from './pages/overview.js';

/** The view's optional token: SECRETS/<audit role>.token when present (as a subject's is <role>.token). */
export function viewTokenFor(rt: RuntimeConfig, cfg: SubjectsConfig): string | undefined {
  const file = join(rt.secretsDir, `${cfg.auditRole}.token`);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}

/** The audit handle: on the given PGlite, or a login with the audit role's password from `passwordFile` or the secrets folder. */
export function openViewAuditDb(rt: RuntimeConfig, cfg: SubjectsConfig, embedded: EmbeddedDatabase | Promise<EmbeddedDatabase> | undefined, passwordFile?: string): AuditDb {
  if (embedded) return openEmbeddedAuditDb(embedded, cfg.auditRole);
  const file = passwordFile ?? new SecretStore(rt.secretsDir).path(cfg.auditRole);
  let password: string;
  try {
    password = readFileSync(file, 'utf8').trim();
  } catch (cause) {
    throw new ConfigError(`the web view logs in as ${cfg.auditRole} and cannot read its password from ${file}; run \`brain init\` once with BRAIN_ADMIN_URL, or set BRAIN_DB_PASSWORD_FILE`, { cause });
  }
  return openServerAuditDb(parseServerUrl(rt.databaseUrl!), cfg.auditRole, password);
}

export interface StartViewOptions {
  config: SubjectsConfig;
  /** The kinds, when known without the database (`brain up` listens before the embedded brain is open). */
  kinds?: readonly Kind[] | undefined;
  /** Closed with the view. */
  audit: AuditDb;
  host: string;
  port: number;
  allowedHosts?: readonly string[];
  token?: string | undefined;
  logger: Logger;
  embedder?: Embedder | undefined;
}

export interface RunningView {
  readonly url: string;
  readonly app: ViewApp;
  close(): Promise<void>;
}

export async function startView(opts: StartViewOptions): Promise<RunningView> {
  try {
    const view = await createViewContext(opts.config, opts.audit.db, opts.embedder, opts.kinds);
    const app = await buildViewApp({ view, logger: opts.logger.child({ view: true }), allowedHosts: opts.allowedHosts, token: opts.token });
    try {
      await app.listen({ host: opts.host, port: opts.port });
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
    // The overview's figures read now, in the background, so the first visit finds them.
    prepareOverview(view).catch((err: unknown) => opts.logger.debug({ err }, 'the overview could not be prepared; the first visit reads it'));
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : opts.port;
    const shown = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
    return {
      url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`,
      app,
      async close() {
        await app.close();
        await opts.audit.close();
      },
    };
  } catch (error) {
    await opts.audit.close().catch(() => undefined);
    throw error;
  }
}
