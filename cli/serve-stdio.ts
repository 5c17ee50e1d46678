// `brain serve --stdio` when no running brain serves the subject over HTTP: this process runs
// the subject's MCP server on stdin/stdout, on the data directory itself or through the
// database link of the process that holds it (another `serve --stdio`; db/open.ts).
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../config/runtime.js';
import { loadSubjects } from '../config/subjects.js';
import { openSubject } from '../db/open.js';
import { createContext } from '../services/knowledge/index.js';
import { createBrainServer } from '../services/mcp/server.js';
import { chooseEmbedder, subjectServices } from '../services/runtime/embedding.js';
import { maintainWhileServing, shareEmbedded } from '../services/runtime/serve.js';

export async function serveStdio(rt: RuntimeConfig, name: string, logger: Logger): Promise<number> {
  const conn = await openSubject(rt, name, logger);
  const stopMaintenance = conn.embedded ? maintainWhileServing(conn.embedded, logger) : async () => undefined;
  // Holding the data directory: other stdio servers and the CLI work through this one meanwhile.
  const withdraw = conn.embedded
    ? await shareEmbedded(rt, conn.embedded, loadSubjects(rt.subjectsFile).subjects, `brain serve --stdio --subject ${conn.subject.name}`, [], logger)
    : async () => undefined;
  const ctx = await createContext(conn.subject, conn.handle.db);
  const { services, embedding } = subjectServices(ctx, await chooseEmbedder(rt), logger, rt.proposalTtlMinutes);
  const server = createBrainServer({ ctx, services, logError: (error) => logger.error({ err: error }, 'tool failed') });
  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
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
  await withdraw();
  await server.close();
  await embedding.stop();
  await stopMaintenance();
  await conn.close();
  return 0;
}
