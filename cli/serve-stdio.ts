// `brain serve --stdio` when no running brain serves the subject over HTTP: this process runs
// the subject's MCP server on stdin/stdout, on the data directory itself or through the
// database link of the process that holds it (another `serve --stdio`; db/open.ts).
//
// Holding the data directory itself, it answers before the brain is open, as `brain serve`
// over HTTP listens first (services/runtime/serve.ts): a client that spawns it (Claude Desktop,
// Claude Code) gets `initialize` and `tools/list` while PGlite starts and the bootstrap check
// runs, and a tool call waits for them (every statement does, PGliteRoleDialect). Opened first,
// `initialize` took 1.1-2.5 s at 7,500 pages, now about half a second (docs/clients.md, "stdio
// instead of HTTP"; bench/cli/stdio-start.ts).
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Logger } from 'pino';
import { loadKinds } from '../config/kinds.js';
import type { RuntimeConfig } from '../config/runtime.js';
import { findSubject, loadSubjects } from '../config/subjects.js';
import { openSubject, type SubjectConnection } from '../db/open.js';
import { openEmbeddedSubjectDb } from '../db/subject-db.js';
import { contextWithKinds, createContext, type BrainContext } from '../services/knowledge/index.js';
import { createBrainServer } from '../services/mcp/server.js';
import { chooseEmbedder, subjectServices } from '../services/runtime/embedding.js';
import { embeddedOpening, maintainWhileServing, opensDataDirectory, shareEmbedded } from '../services/runtime/serve.js';

interface Serving {
  ctx: BrainContext;
  /** Settles once the brain is open and this process serves it (maintenance, shared with the CLI); rejects if it cannot open. */
  opened: Promise<void>;
  /** Other processes stop sending their work here (first, before the server closes). */
  withdraw(): Promise<void>;
  close(): Promise<void>;
}

/** This process opens the embedded data directory: the context is usable at once, its statements wait for the open. */
function serveWhileOpening(rt: RuntimeConfig, name: string, logger: Logger, opening: Promise<SubjectConnection>): Serving {
  const subjects = loadSubjects(rt.subjectsFile);
  const subject = findSubject(subjects, name);
  const embedded = embeddedOpening(opening, name, 'brain serve --stdio');
  const handle = openEmbeddedSubjectDb(embedded, subject);
  let stopMaintenance = async () => undefined as void;
  let withdraw = async () => undefined as void;
  const opened = embedded.then(async (e) => {
    stopMaintenance = maintainWhileServing(e, logger);
    // Holding the data directory: other stdio servers and the CLI work through this one meanwhile.
    withdraw = await shareEmbedded(rt, e, subjects.subjects, `brain serve --stdio --subject ${name}`, [], logger);
  });
  opened.catch(() => undefined);
  return {
    ctx: contextWithKinds(subject, handle.db, loadKinds(rt.kindsFile)),
    opened,
    withdraw: () => opened.then(() => withdraw(), () => undefined),
    async close() {
      await opened.catch(() => undefined);
      await stopMaintenance();
      await handle.close();
      await opening.then((c) => c.close()).catch(() => undefined);
    },
  };
}

/** A server's pool, or a link to the process holding the data directory: quick to open, so opened first. */
async function serveOpened(opening: Promise<SubjectConnection>): Promise<Serving> {
  const conn = await opening;
  const ctx = await createContext(conn.subject, conn.handle.db).catch(async (error: unknown) => {
    await conn.close();
    throw error;
  });
  return { ctx, opened: Promise.resolve(), withdraw: async () => undefined, close: () => conn.close() };
}

export async function serveStdio(rt: RuntimeConfig, name: string, logger: Logger): Promise<number> {
  const opening = openSubject(rt, name, logger);
  opening.catch(() => undefined);
  const first = opensDataDirectory(rt);
  let serving: Serving;
  try {
    serving = first ? serveWhileOpening(rt, name, logger, opening) : await serveOpened(opening);
    // A data directory refused at once (in use, not a brain) is refused before anything is answered.
    await Promise.race([opening, Promise.resolve()]);
  } catch (error) {
    await opening.then((c) => c.close()).catch(() => undefined);
    throw error;
  }
  const { ctx } = serving;
  const { services, embedding } = subjectServices(ctx, await chooseEmbedder(rt), logger, rt.proposalTtlMinutes);
  const server = createBrainServer({ ctx, services, logError: (error) => logger.error({ err: error }, 'tool failed') });
  await server.connect(new StdioServerTransport());
  let failed: unknown;
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    // A brain that cannot open (damaged, a kind still in use, another process took it): said on
    // stderr, and this server ends, as it did when it opened before answering.
    serving.opened.catch((error: unknown) => {
      failed = error;
      resolve();
    });
    // The first signal starts the cleanup below; a second does not cut it short (the
    // database is closed and its lock released); a third exits at once.
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) return resolve();
      if (signals === 2) return logger.warn({ signal }, 'second signal: closing now; signal again to exit without cleanup');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await serving.withdraw();
  await server.close();
  await embedding.stop();
  await serving.close();
  if (failed !== undefined) throw failed;
  return 0;
}
