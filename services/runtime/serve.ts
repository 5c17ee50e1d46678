// Starting subject servers from the runtime configuration: one subject per process
// (`brain serve`, the compose stack) or every subject in one process (`brain up`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../../config/runtime.js';
import { findSubject, loadSubjects, type Subject } from '../../config/subjects.js';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { startEmbeddedMaintenance } from '../../db/embedded-maintenance.js';
import { openAdmin, openSubject, runBootstrap } from '../../db/open.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { chooseEmbedder, type EmbedderChoice } from './embedding.js';
import { startSubjectServer, type RunningSubjectServer } from './subject-server.js';

/** An optional bearer token: BRAIN_TOKEN_FILE, else SECRETS/<role>.token when present. */
export function bearerTokenFor(rt: RuntimeConfig, subject: Subject, env = process.env): string | undefined {
  const file = env.BRAIN_TOKEN_FILE ?? join(rt.secretsDir, `${subject.role}.token`);
  if (!existsSync(file)) return undefined;
  const token = readFileSync(file, 'utf8').trim();
  return token || undefined;
}

export interface RunningBrain {
  readonly servers: readonly RunningSubjectServer[];
  close(): Promise<void>;
}

async function start(rt: RuntimeConfig, subject: Subject, handle: SubjectDb, logger: Logger, embedder: EmbedderChoice, port?: number): Promise<RunningSubjectServer> {
  return startSubjectServer({
    embedder,
    proposalTtlMinutes: rt.proposalTtlMinutes,
    subject,
    handle,
    host: rt.host,
    port: port ?? subject.port,
    allowedHosts: rt.allowedHosts,
    bearerToken: bearerTokenFor(rt, subject),
    logger,
    sessionIdleMs: rt.sessionIdleMinutes * 60_000,
  });
}

/**
 * PGlite has no autovacuum: without this its tables would never be analysed
 * (db/embedded-maintenance.ts). Starts at once with a pass over every table; returns its stop.
 */
export function maintainWhileServing(embedded: EmbeddedDatabase, logger: Logger): () => Promise<void> {
  const maintenance = startEmbeddedMaintenance(embedded, {
    onSteps: (steps) => logger.info({ steps }, 'embedded maintenance'),
    onError: (err) => logger.warn({ err }, 'embedded maintenance failed; it will be tried again'),
  });
  void maintenance.runNow().catch(() => undefined);
  return () => maintenance.stop();
}

/** One subject, with only that subject's credentials. */
export async function serveOne(rt: RuntimeConfig, name: string, logger: Logger, port?: number): Promise<RunningBrain> {
  const conn = await openSubject(rt, name, logger);
  const stopMaintenance = conn.embedded ? maintainWhileServing(conn.embedded, logger) : async () => undefined;
  try {
    const embedder = await chooseEmbedder(rt);
    logger.info({ embedder: embedder.reason }, 'embedder');
    const server = await start(rt, conn.subject, conn.handle, logger, embedder, port);
    return {
      servers: [server],
      async close() {
        await server.close();
        await stopMaintenance();
        await conn.close();
      },
    };
  } catch (error) {
    await stopMaintenance();
    await conn.close();
    throw error;
  }
}

/** Every subject. Embedded: one PGlite shared by all, each server on its own role. */
export async function serveAll(rt: RuntimeConfig, logger: Logger): Promise<RunningBrain> {
  const cfg = loadSubjects(rt.subjectsFile);
  const servers: RunningSubjectServer[] = [];
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    // In parallel: each server's shutdown drain runs at the same time, not one after the other.
    await Promise.allSettled(servers.splice(0).map((s) => s.close()));
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const embedder = await chooseEmbedder(rt);
    logger.info({ embedder: embedder.reason }, 'embedder');
    if (rt.mode === 'embedded') {
      const admin = await openAdmin(rt);
      closers.push(() => admin.close());
      await runBootstrap(rt, admin, cfg);
      closers.push(maintainWhileServing(admin.embedded!, logger));
      for (const subject of cfg.subjects) {
        const handle = openEmbeddedSubjectDb(admin.embedded!, subject);
        closers.push(() => handle.close());
        servers.push(await start(rt, subject, handle, logger, embedder));
      }
    } else {
      for (const subject of cfg.subjects) {
        const conn = await openSubject(rt, findSubject(cfg, subject.name).name, logger);
        closers.push(() => conn.close());
        servers.push(await start(rt, subject, conn.handle, logger, embedder));
      }
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  return { servers, close: closeAll };
}

/**
 * Stops cleanly on SIGINT/SIGTERM. The first signal: new requests get 503, requests in flight
 * get the drain time (services/mcp/http.ts, 5 s) to finish, then every MCP session is closed,
 * its streams ended and its sockets cut; then the embedding workers, the database and the
 * data-directory lock. A second signal skips (or ends) the drain but still does the rest of
 * the cleanup. A third exits at once, without cleanup.
 */
export function closeOnSignals(brain: RunningBrain, logger: Logger, say: (line: string) => void = (l) => process.stderr.write(`claude-brain: ${l}\n`)): void {
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      // brain.close() empties brain.servers: keep them for a second signal.
      const servers = [...brain.servers];
      const sessions = servers.reduce((n, s) => n + s.app.mcpSessions.count, 0);
      const inFlight = servers.reduce((n, s) => n + s.app.mcpSessions.inFlight, 0);
      logger.info({ signal, sessions, inFlight }, 'shutting down');
      say(`${signal}: shutting down; ${sessions} MCP session(s) open, ${inFlight} request(s) in flight (given a few seconds to finish). Signal again to close at once.`);
      stopNow = () => {
        for (const s of servers) s.app.mcpSessions.closeNow();
      };
      const started = Date.now();
      brain.close().then(
        () => {
          logger.info({ ms: Date.now() - started }, 'stopped');
          say(`stopped in ${((Date.now() - started) / 1000).toFixed(1)} s (sessions closed, database closed).`);
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          say(`shutdown failed: ${(error as Error).message}`);
          process.exit(1);
        },
      );
    } else if (signals === 2) {
      logger.warn({ signal }, 'second signal: closing now');
      say(`${signal} again: second signal: closing now (sessions and connections cut; the database is still closed cleanly). A third signal exits without cleanup.`);
      stopNow();
    } else {
      logger.error({ signal }, 'third signal: exiting without cleanup');
      say(`${signal} a third time: exiting without cleanup (the data-directory lock may be left behind).`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
  };
  let stopNow = () => undefined as void;
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
