import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { pino } from 'pino';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { openSubject, requestNewBrain } from '../../db/open.js';
import { createContext } from '../../services/knowledge/index.js';
import { createBrainServer } from '../../services/mcp/server.js';
import { createLogger } from '../../services/runtime/logger.js';
import { chooseEmbedder, subjectServices } from '../../services/runtime/embedding.js';
import { closeOnSignals, maintainWhileServing, serveOne } from '../../services/runtime/serve.js';
import { CliError, parse } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain serve --subject NAME [--port N] [--stdio] [--init]';

export const serve: Command = {
  usage,
  summary: 'Serve one subject over MCP: Streamable HTTP on its port (default), or stdio for clients that spawn it.',
  async run(args) {
    const { values } = parse(args, { subject: { type: 'string' }, port: { type: 'string' }, stdio: { type: 'boolean' }, init: { type: 'boolean' } }, usage);
    // --init: the embedded brain may start new and empty even when secrets exist beside a missing data directory.
    if (values.init) requestNewBrain();
    const name = values.subject ?? process.env.BRAIN_SUBJECT;
    if (!name) throw new CliError(`--subject is required\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    if (values.stdio) {
      // stdout carries the protocol: logs go to stderr.
      const logger = pino({ name: 'claude-brain', level: process.env.BRAIN_LOG_LEVEL ?? 'warn' }, pino.destination(2));
      const conn = await openSubject(rt, name, logger);
      const stopMaintenance = conn.embedded ? maintainWhileServing(conn.embedded, logger) : async () => undefined;
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
      await server.close();
      await embedding.stop();
      await stopMaintenance();
      await conn.close();
      return 0;
    }
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !Number.isInteger(port)) throw new CliError('--port must be a whole number');
    const logger = createLogger('claude-brain');
    const brain = await serveOne(rt, name, logger, port);
    const s = brain.servers[0]!;
    logger.info({ subject: s.subject.name, url: s.url }, 'serving');
    process.stderr.write(`claude-brain: serving "${s.subject.name}" at ${s.url}\n`);
    closeOnSignals(brain, logger);
    await new Promise(() => undefined);
    return 0;
  },
};
