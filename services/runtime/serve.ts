// Starting subject servers from the runtime configuration: one subject per process
// (`brain serve`, the compose stack) or every subject in one process (`brain up`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadKinds, type Kind } from '../../config/kinds.js';
import type { RuntimeConfig } from '../../config/runtime.js';
import { findSubject, loadSubjects, type Subject, type SubjectsConfig } from '../../config/subjects.js';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { startEmbeddedMaintenance } from '../../db/embedded-maintenance.js';
import { startLinkServer } from '../../db/link-server.js';
import { openAdmin, openSubject, runBootstrap, type AdminConnection, type SubjectConnection } from '../../db/open.js';
import { findRunning, publishRunning } from '../../db/running-file.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { checkOAuthSubjects, oauthFor } from '../auth/for-subject.js';
import { chooseEmbedder, type EmbedderChoice } from './embedding.js';
import type { ListenGate } from './listen-gate.js';
import { StartPhases } from './start-phases.js';
import { startSubjectServer, type RunningSubjectServer } from './subject-server.js';
import { warmUp, type WarmUpState } from './warm-up.js';
import type { RunningView } from '../view/start.js';

/** An optional bearer token: BRAIN_TOKEN_FILE, else SECRETS/<role>.token when present. */
export function bearerTokenFor(rt: RuntimeConfig, subject: Subject, env = process.env): string | undefined {
  const file = env.BRAIN_TOKEN_FILE ?? join(rt.secretsDir, `${subject.role}.token`);
  if (!existsSync(file)) return undefined;
  const token = readFileSync(file, 'utf8').trim();
  return token || undefined;
}

export interface RunningBrain {
  readonly servers: readonly RunningSubjectServer[];
  /** The embedder search uses, and why. */
  readonly embedder: EmbedderChoice;
  /** The model load and first searches after listening (warm-up.ts). */
  readonly warmUp: WarmUpState;
  /** Each step of the start, timed (start-phases.ts). */
  readonly phases: StartPhases;
  /**
   * Settles once the database is open and checked. `brain up` on the embedded brain listens
   * first: requests wait for this, and a failure here (a damaged data directory, a kind still in
   * use) rejects it. Elsewhere it has settled before the servers listen.
   */
  readonly database: Promise<void>;
  /** Whether this process opens the embedded brain itself and listened before it was open (otherwise `database` has settled already). */
  readonly listenedFirst: boolean;
  /** `brain up`: the read-only web view (services/view/), unless BRAIN_VIEW_PORT=off or it could not start. */
  readonly view?: RunningView | undefined;
  /** Why the web view is not running, when `brain up` tried to start it. */
  readonly viewProblem?: string | undefined;
  close(): Promise<void>;
}

async function start(rt: RuntimeConfig, subject: Subject, handle: SubjectDb, logger: Logger, embedder: EmbedderChoice, port?: number, kinds?: readonly Kind[]): Promise<RunningSubjectServer> {
  // First: with OAuth on it makes the owner's token file that bearerTokenFor then reads.
  const oauth = oauthFor(rt, subject);
  return startSubjectServer({
    oauth,
    ...(kinds ? { kinds } : {}),
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
 * (db/embedded-maintenance.ts). Starts at once with a pass over every table (call it once the
 * servers listen: each table's step holds the connection, the pass does not); returns its stop.
 */
export function maintainWhileServing(embedded: EmbeddedDatabase, logger: Logger, firstPassDelayMs = 0): () => Promise<void> {
  const maintenance = startEmbeddedMaintenance(embedded, {
    onSteps: (steps) => logger.info({ steps }, 'embedded maintenance'),
    onError: (err) => logger.warn({ err }, 'embedded maintenance failed; it will be tried again'),
  });
  const first = setTimeout(() => void maintenance.runNow().catch(() => undefined), firstPassDelayMs);
  first.unref();
  return () => {
    clearTimeout(first);
    return maintenance.stop();
  };
}

/**
 * The work a server starts once it listens (PGlite's maintenance pass, the warm-up) begins
 * this much later: every embedded query runs on the main thread, and the banner goes first.
 */
const AFTER_LISTENING_DELAY_MS = 300;

/**
 * Once this process holds the embedded brain and its servers listen: tell other processes
 * where to reach it (db/running-file.ts), with the database link (db/link-server.ts) through
 * which their subject commands run. Returns the undo, which withdraws the file first.
 */
export async function shareEmbedded(
  rt: RuntimeConfig,
  embedded: EmbeddedDatabase,
  subjects: readonly Subject[],
  command: string,
  servers: readonly RunningSubjectServer[],
  logger: Logger,
): Promise<() => Promise<void>> {
  const link = await startLinkServer(embedded, subjects, logger);
  const tokenFiles = new Map(servers.map((s) => [s.subject.name, bearerTokenFor(rt, s.subject) === undefined ? undefined : (process.env.BRAIN_TOKEN_FILE ?? join(rt.secretsDir, `${s.subject.role}.token`))]));
  const unpublish = publishRunning(rt.home, {
    command,
    mcp: Object.fromEntries(servers.map((s) => [s.subject.name, { url: s.url, ...(tokenFiles.get(s.subject.name) ? { tokenFile: tokenFiles.get(s.subject.name)! } : {}) }])),
    link: { host: link.host, port: link.port, token: link.token },
  });
  return async () => {
    unpublish();
    await link.close();
  };
}

interface AfterListening {
  warm: WarmUpState;
  /** Withdraws running.json and closes the database link: before the servers stop. */
  withdraw: () => Promise<void>;
  stopMaintenance: () => Promise<void>;
}

/**
 * The steps after the servers listen, so the banner waits for none of them: PGlite's
 * maintenance pass (db/embedded-maintenance.ts), sharing the embedded brain with the CLI,
 * and the warm-up (warm-up.ts).
 */
async function afterListening(
  rt: RuntimeConfig,
  embedded: EmbeddedDatabase | undefined,
  subjects: readonly Subject[],
  command: string,
  servers: readonly RunningSubjectServer[],
  embedder: EmbedderChoice,
  logger: Logger,
  phases: StartPhases,
): Promise<AfterListening> {
  let stopMaintenance = async () => undefined as void;
  let withdraw = async () => undefined as void;
  if (embedded) {
    stopMaintenance = maintainWhileServing(embedded, logger, AFTER_LISTENING_DELAY_MS);
    // Idle, the brain gives its memory back (PGlite closed) and the next request opens it again.
    // With the sleep off it stays open, and still gives back what an awake brain can (trimIfIdle).
    const minutes = rt.embeddedIdleMinutes;
    embedded.sleepWhenIdle(minutes === undefined ? Number.POSITIVE_INFINITY : minutes * 60_000, {
      slept: (memory) => logger.info({ idleMinutes: minutes, ...memory }, 'the embedded brain is asleep (no request for a while): PGlite closed, its memory given back'),
      woke: (ms) => logger.info({ ms }, 'the embedded brain woke for a request'),
      trimmed: (trim, ms) => logger.debug({ ...trim, ms }, 'the embedded brain, idle, gave memory back (a garbage collection once settled, malloc_trim, untouched PGlite pages)'),
    });
    try {
      withdraw = await shareEmbedded(rt, embedded, subjects, command, servers, logger);
    } catch (error) {
      await stopMaintenance();
      throw error;
    }
    phases.mark('shared with the CLI (running.json, database link)');
  }
  return { warm: warmUp(servers, embedder, logger, AFTER_LISTENING_DELAY_MS, embedded).status, withdraw, stopMaintenance };
}

/** One subject, with only that subject's credentials. */
export async function serveOne(
  rt: RuntimeConfig,
  name: string,
  logger: Logger,
  port?: number,
  phases = new StartPhases(),
  opening?: Promise<SubjectConnection>,
  gate?: ListenGate,
): Promise<RunningBrain> {
  phases.mark('server modules loaded');
  // The embedder's health check (Ollama's) runs while the database opens.
  const choosing = chooseEmbedder(rt);
  choosing.catch(() => undefined);
  // Already opening when the caller started it while the modules loaded (cli/commands/serve.ts).
  const connecting = opening ?? openSubject(rt, name, logger, { mark: phases.mark });
  connecting.catch(() => undefined);
  // This process takes the embedded data directory (no running brain to link to): listen first,
  // as brain up does, while PGlite starts and the bootstrap check runs; every statement waits
  // for them (PGliteRoleDialect). Otherwise the connection is quick (a server's pool, a link).
  if (opensDataDirectory(rt)) return serveOneOpening(rt, name, logger, port, phases, choosing, connecting, gate);
  // Nothing to listen before: whatever the connection is (a pool, a link, a brain opened after
  // all), it goes on now.
  gate?.open();
  const conn = await connecting;
  if (conn.linkedTo) phases.mark(`linked to ${conn.linkedTo}`);
  let server: RunningSubjectServer | undefined;
  let after: AfterListening | undefined;
  const close = async () => {
    await after?.withdraw().catch(() => undefined);
    await server?.close();
    await after?.stopMaintenance();
    await conn.close();
  };
  try {
    const embedder = await choosing;
    logger.info({ embedder: embedder.reason }, 'embedder');
    checkOAuthSubjects(rt, loadSubjects(rt.subjectsFile).subjects);
    server = await start(rt, conn.subject, conn.handle, logger, embedder, port);
    phases.mark('server listening');
    after = await afterListening(rt, conn.embedded, loadSubjects(rt.subjectsFile).subjects, `brain serve --subject ${conn.subject.name}`, [server], embedder, logger, phases);
    logger.info({ phases: phases.list, ms: phases.total }, 'started');
    return { servers: [server], embedder, warmUp: after.warm, phases, database: Promise.resolve(), listenedFirst: false, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The warm-up's state, read by the banner before the database is open (and the warm-up started). */
function warmUpOnceOpen(after: () => AfterListening | undefined): WarmUpState {
  return {
    get state() {
      return after()?.warm.state ?? 'warming';
    },
    get ms() {
      return after()?.warm.ms;
    },
  };
}

/**
 * Whether this process opens the embedded data directory itself (no running brain to link to):
 * then it answers before the brain is open (serveOneOpening, and `serve --stdio`), every
 * statement waiting for the open (PGliteRoleDialect).
 */
export function opensDataDirectory(rt: RuntimeConfig): boolean {
  return rt.mode === 'embedded' && !findRunning(rt.home)?.link;
}

/**
 * The embedded brain `connecting` opens, for a server that answers before it is open. Rejects
 * when another brain published its link between opensDataDirectory's look and the open: then
 * `command` started again serves through it.
 */
export function embeddedOpening(connecting: Promise<SubjectConnection>, name: string, command: string): Promise<EmbeddedDatabase> {
  const embedded = connecting.then((c) => {
    if (c.embedded) return c.embedded;
    throw new Error(`another process started serving this brain while ${name} was starting (${c.linkedTo ?? 'unknown'}); start ${command} again to serve through it`);
  });
  embedded.catch(() => undefined);
  return embedded;
}

/** serveOne on the embedded brain this process is opening: the server listens before it is open. */
async function serveOneOpening(
  rt: RuntimeConfig,
  name: string,
  logger: Logger,
  port: number | undefined,
  phases: StartPhases,
  choosing: Promise<EmbedderChoice>,
  connecting: Promise<SubjectConnection>,
  gate: ListenGate | undefined,
): Promise<RunningBrain> {
  const { cfg, subject } = (() => {
    try {
      const subjects = loadSubjects(rt.subjectsFile);
      const found = findSubject(subjects, name);
      checkOAuthSubjects(rt, subjects.subjects);
      return { cfg: subjects, subject: found };
    } catch (error) {
      gate?.open();
      void connecting.then((c) => c.close()).catch(() => undefined);
      throw error;
    }
  })();
  const embedded = embeddedOpening(connecting, name, 'brain serve');
  const handle = openEmbeddedSubjectDb(embedded, subject);
  let server: RunningSubjectServer | undefined;
  let after: AfterListening | undefined;
  const close = async () => {
    await database.catch(() => undefined);
    await after?.withdraw().catch(() => undefined);
    await server?.close();
    await after?.stopMaintenance();
    await handle.close();
    await connecting.then((c) => c.close()).catch(() => undefined);
  };
  let database: Promise<void> = connecting.then(() => undefined);
  try {
    // A data directory refused at once (in use, not a brain, damaged) is refused before anything listens.
    await Promise.race([connecting, Promise.resolve()]);
    const embedder = await choosing;
    logger.info({ embedder: embedder.reason }, 'embedder');
    server = await start(rt, subject, handle, logger, embedder, port, loadKinds(rt.kindsFile));
    phases.mark('server listening');
    gate?.openWhenQuiet([server.app.server]);
    const listening = server;
    database = embedded.then(async (e) => {
      after = await afterListening(rt, e, cfg.subjects, `brain serve --subject ${name}`, [listening], embedder, logger, phases);
      logger.info({ phases: phases.list, ms: phases.total }, 'database open');
    });
    database.catch(() => undefined);
    const warmUp = warmUpOnceOpen(() => after);
    logger.info({ phases: phases.list, ms: phases.total }, 'started');
    return { servers: [server], embedder, warmUp, phases, database, listenedFirst: true, close };
  } catch (error) {
    gate?.open();
    await close();
    throw error;
  }
}

/** Every subject. Embedded: one PGlite shared by all, each server on its own role. */
export async function serveAll(rt: RuntimeConfig, logger: Logger, phases = new StartPhases(), opening?: Promise<AdminConnection>, gate?: ListenGate): Promise<RunningBrain> {
  phases.mark('server modules loaded');
  const servers: RunningSubjectServer[] = [];
  const closers: (() => Promise<void>)[] = [];
  let after: AfterListening | undefined;
  let database: Promise<unknown> = Promise.resolve();
  let view: RunningView | undefined;
  let viewProblem: string | undefined;
  const closeAll = async () => {
    // Other processes stop sending work here first; then every server's shutdown drain, in
    // parallel, not one after the other; then the rest, last opened first. A database still
    // opening is waited for, so that it closes cleanly (and releases data.lock).
    await database.catch(() => undefined);
    await after?.withdraw().catch(() => undefined);
    await view?.close().catch(() => undefined);
    await Promise.allSettled(servers.splice(0).map((s) => s.close()));
    await after?.stopMaintenance();
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  // The embedder's health check (Ollama's) runs while the database opens.
  const choosing = chooseEmbedder(rt);
  choosing.catch(() => undefined);
  let embedder: EmbedderChoice;
  // Configuration refused before anything listens, and the brain already opening closed.
  const { cfg, kinds } = (() => {
    try {
      const subjects = loadSubjects(rt.subjectsFile);
      checkOAuthSubjects(rt, subjects.subjects);
      return { cfg: subjects, kinds: rt.mode === 'embedded' ? loadKinds(rt.kindsFile) : undefined };
    } catch (error) {
      gate?.open();
      void opening?.then((a) => a.close()).catch(() => undefined);
      throw error;
    }
  })();
  try {
    if (rt.mode === 'embedded') {
      // The servers listen before the embedded brain is open: PGlite's start and the bootstrap
      // check (schema, grants, kinds, deny-list as recorded, else the bootstrap itself) take
      // seconds, and every statement waits for them (PGliteRoleDialect), so nothing is served
      // from an unmigrated schema or stale grants. The kinds come from kinds.yaml, which the
      // bootstrap makes brain.kinds equal to.
      const admin = opening ?? openAdmin(rt, { mark: phases.mark });
      const opened = admin.then(async (a) => {
        closers.unshift(() => a.close());
        await runBootstrap(rt, a, cfg, { skipIfCurrent: true, mark: phases.mark });
        return a.embedded!;
      });
      database = opened;
      opened.catch(() => undefined);
      // A data directory refused at once (in use by another process, not a brain, damaged since
      // its last close: checked before PGlite starts) is refused before anything listens.
      await Promise.race([admin, Promise.resolve()]);
      embedder = await choosing;
      logger.info({ embedder: embedder.reason }, 'embedder');
      for (const subject of cfg.subjects) {
        const handle = openEmbeddedSubjectDb(opened, subject);
        closers.push(() => handle.close());
        servers.push(await start(rt, subject, handle, logger, embedder, undefined, kinds));
      }
      phases.mark('servers listening');
      ({ view, viewProblem } = await viewBeside(rt, cfg, opened, kinds, embedder, logger, phases));
      gate?.openWhenQuiet([...servers.map((s) => s.app.server), ...(view ? [view.app.server] : [])]);
      const ready = opened.then(async (embedded) => {
        after = await afterListening(rt, embedded, cfg.subjects, 'brain up', servers, embedder, logger, phases);
        logger.info({ phases: phases.list, ms: phases.total }, 'database open');
      });
      ready.catch(() => undefined);
      database = ready;
      const warmUp = warmUpOnceOpen(() => after);
      logger.info({ phases: phases.list, ms: phases.total }, 'started');
      return { servers, embedder, warmUp, phases, database: ready, listenedFirst: true, view, viewProblem, close: closeAll };
    } else {
      embedder = await choosing;
      logger.info({ embedder: embedder.reason }, 'embedder');
      for (const subject of cfg.subjects) {
        const conn = await openSubject(rt, findSubject(cfg, subject.name).name, logger);
        closers.push(() => conn.close());
        servers.push(await start(rt, subject, conn.handle, logger, embedder));
      }
    }
    phases.mark('servers listening');
    ({ view, viewProblem } = await viewBeside(rt, cfg, undefined, undefined, embedder, logger, phases));
    after = await afterListening(rt, undefined, cfg.subjects, 'brain up', servers, embedder, logger, phases);
  } catch (error) {
    gate?.open();
    await closeAll();
    throw error;
  }
  logger.info({ phases: phases.list, ms: phases.total }, 'started');
  return { servers, embedder, warmUp: after.warm, phases, database: Promise.resolve(), listenedFirst: false, view, viewProblem, close: closeAll };
}

/**
 * The web view beside `brain up`'s servers, a convenience: if it cannot start (its port taken,
 * no audit password), the brain runs without it and says why. Embedded, it listens before the
 * brain is open, as the servers do.
 */
async function viewBeside(
  rt: RuntimeConfig,
  cfg: SubjectsConfig,
  embedded: Promise<EmbeddedDatabase> | undefined,
  kinds: readonly Kind[] | undefined,
  embedder: EmbedderChoice,
  logger: Logger,
  phases: StartPhases,
): Promise<{ view?: RunningView; viewProblem?: string }> {
  if (rt.viewPort === undefined) return {};
  const clash = cfg.subjects.find((s) => s.port === rt.viewPort);
  if (clash) return { viewProblem: `port ${rt.viewPort} is the MCP port of subject "${clash.name}" in subjects.yaml; set BRAIN_VIEW_PORT to a free port` };
  try {
    // Loaded only here: the banner does not wait for the view's modules when it is off.
    const { openViewAuditDb, startView, viewTokenFor } = await import('../view/start.js');
    const view = await startView({
      config: cfg,
      kinds,
      audit: openViewAuditDb(rt, cfg, embedded),
      host: rt.host,
      port: rt.viewPort,
      allowedHosts: rt.allowedHosts,
      token: viewTokenFor(rt, cfg),
      logger,
      embedder: embedder.embedder,
    });
    phases.mark('web view listening');
    return { view };
  } catch (error) {
    logger.warn({ err: error }, 'the web view did not start; the brain runs without it');
    return { viewProblem: (error as Error).message };
  }
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
