// One subject's MCP server: its own database handle (its own role), its MCP session
// factory, its HTTP listener. Used by `brain serve` (one subject per process, as in the
// compose stack) and by `brain up` (every subject, one embedded database).
import type { Logger } from 'pino';
import type { Kind } from '../../config/kinds.js';
import type { OAuthAuthority } from '../auth/authority.js';
import { remoteSession } from '../auth/remote-session.js';
import type { Subject } from '../../config/subjects.js';
import type { SubjectDb } from '../../db/subject-db.js';
import { contextWithKinds, createContext, type BrainContext } from '../knowledge/index.js';
import { buildHttpApp, type BrainHttpApp } from '../mcp/http.js';
import { createBrainServer } from '../mcp/server.js';
import type { AnyBrainTool } from '../mcp/tools/types.js';
import { subjectServices, type EmbedderChoice } from './embedding.js';
import { checkReadiness } from './readiness.js';

export interface SubjectServerOptions {
  subject: Subject;
  handle: SubjectDb;
  host: string;
  port: number;
  allowedHosts?: readonly string[];
  bearerToken?: string | undefined;
  /** OAuth for this subject (services/auth/); its public name, if any, is accepted as Host for this subject only. */
  oauth?: OAuthAuthority | undefined;
  logger: Logger;
  /** The process's embedder (shared by its subjects); none means keyword search only. */
  embedder?: EmbedderChoice;
  extraTools?: readonly AnyBrainTool[];
  /** How long a session-close proposal waits for the human. */
  proposalTtlMinutes?: number;
  /** Per-session request rate (default 20/s, bursts of 60). */
  rateLimit?: { perSecond: number; burst: number };
  /** An MCP session with no request and no open stream for this long is closed (services/mcp/http.ts). */
  sessionIdleMs?: number;
  /** On shutdown, how long requests in flight may run before sessions are closed. */
  drainMs?: number;
  /**
   * The kinds, when the caller knows them without asking the database: `brain up` listens
   * before the embedded brain has opened, and its bootstrap makes brain.kinds equal to
   * kinds.yaml before any statement runs. Otherwise they are read from brain.kinds.
   */
  kinds?: readonly Kind[];
}

export interface RunningSubjectServer {
  readonly subject: Subject;
  readonly url: string;
  readonly ctx: BrainContext;
  readonly app: BrainHttpApp;
  close(): Promise<void>;
}

export async function startSubjectServer(opts: SubjectServerOptions): Promise<RunningSubjectServer> {
  const ctx: BrainContext = opts.kinds ? contextWithKinds(opts.subject, opts.handle.db, opts.kinds) : await createContext(opts.subject, opts.handle.db);
  const log = opts.logger.child({ subject: opts.subject.name });
  const { services, embedding } = subjectServices(ctx, opts.embedder ?? { embedder: undefined, reason: 'no embedder configured: keyword search only' }, log, opts.proposalTtlMinutes);
  const app = await buildHttpApp({
    subject: opts.subject.name,
    logger: log,
    allowedHosts: [...(opts.allowedHosts ?? []), ...(opts.oauth?.publicUrl ? [opts.oauth.publicUrl.hostname] : [])],
    bearerToken: opts.bearerToken,
    oauth: opts.oauth,
    createServer: (auth) => {
      // A client is connecting: the offline model (loaded on first need) starts loading now.
      services.search?.embedder?.prepare?.();
      return createBrainServer({
        ...remoteSession(ctx, auth),
        services,
        extraTools: opts.extraTools,
        logError: (error) => log.error({ err: error }, 'tool failed'),
      });
    },
    readiness: () => checkReadiness(ctx, embedding.report),
    ...(opts.rateLimit ? { requestsPerSecond: opts.rateLimit.perSecond, burst: opts.rateLimit.burst } : {}),
    ...(opts.sessionIdleMs === undefined ? {} : { sessionIdleMs: opts.sessionIdleMs }),
    ...(opts.drainMs === undefined ? {} : { drainMs: opts.drainMs }),
  });
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (error) {
    await embedding.stop();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    subject: opts.subject,
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}/mcp`,
    ctx,
    app,
    async close() {
      await app.close();
      await embedding.stop();
    },
  };
}
