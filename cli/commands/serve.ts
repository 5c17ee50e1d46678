import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { findRunning } from '../../db/running-file.js';
import { ListenGate } from '../../services/runtime/listen-gate.js';
import { StartPhases } from '../../services/runtime/start-phases.js';
import { CliError, parse } from '../output.js';
import { bridgeStdio } from '../stdio-bridge.js';
import type { Command } from './index.js';

const usage = 'brain serve --subject NAME [--port N] [--stdio] [--init]';

export const serve: Command = {
  usage,
  summary: 'Serve one subject over MCP: Streamable HTTP on its port (default), or stdio for clients that spawn it.',
  async run(args) {
    const phases = new StartPhases();
    const { values } = parse(args, { subject: { type: 'string' }, port: { type: 'string' }, stdio: { type: 'boolean' }, init: { type: 'boolean' } }, usage);
    // --init: the embedded brain may start new and empty even when secrets exist beside a missing data directory.
    if (values.init) (await import('../../db/open.js')).requestNewBrain();
    const name = values.subject ?? process.env.BRAIN_SUBJECT;
    if (!name) throw new CliError(`--subject is required\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    if (values.stdio) {
      // stdout carries the protocol: logs go to stderr.
      const logger = pino({ name: 'claude-brain', level: process.env.BRAIN_LOG_LEVEL ?? 'warn' }, pino.destination(2));
      // A running brain serves this subject over HTTP: pass stdio through to it (cli/stdio-bridge.ts),
      // loading none of the server's modules.
      const endpoint = rt.mode === 'embedded' && !values.init ? findRunning(rt.home)?.mcp[name] : undefined;
      if (endpoint) {
        logger.info({ url: endpoint.url }, 'serving stdio through the running brain');
        const stop = () => process.stdin.destroy();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        await bridgeStdio(endpoint.url, endpoint.tokenFile ? readFileSync(endpoint.tokenFile, 'utf8').trim() : undefined, logger);
        return 0;
      }
      // Postgres's WebAssembly compiles on a worker thread while this one loads the server's modules.
      if (rt.mode === 'embedded') import('../../db/postgres-wasm.js').then((m) => m.startCompilingPostgres(), () => undefined);
      return (await import('../serve-stdio.js')).serveStdio(rt, name, logger);
    }
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !Number.isInteger(port)) throw new CliError('--port must be a whole number');
    // Postgres's WebAssembly compiles on a worker thread while this one loads the modules below.
    if (rt.mode === 'embedded') import('../../db/postgres-wasm.js').then((m) => m.startCompilingPostgres(), () => undefined);
    const [{ createLogger }, { openSubject }] = await Promise.all([import('../../services/runtime/logger.js'), import('../../db/open.js')]);
    const logger = createLogger('claude-brain');
    phases.mark('modules loaded');
    // The subject starts opening now, as brain up does: its data directory is checked at once,
    // PGlite starts once the server listens and has been quiet a moment (ListenGate), and its
    // WebAssembly compiles on a worker thread meanwhile, while the server's modules load on this one.
    const gate = new ListenGate();
    const opening = openSubject(rt, name, logger, { mark: phases.mark, startAfter: gate.opened });
    opening.catch(() => undefined);
    const { closeOnSignals, serveOne } = await import('../../services/runtime/serve.js').catch(async (error: unknown) => {
      gate.open();
      await opening.then((c) => c.close()).catch(() => undefined);
      throw error;
    });
    const brain = await serveOne(rt, name, logger, port, phases, opening, gate);
    const s = brain.servers[0]!;
    logger.info({ subject: s.subject.name, url: s.url }, 'serving');
    process.stderr.write(`claude-brain: serving "${s.subject.name}" at ${s.url} (started in ${phases.summary()})\n`);
    closeOnSignals(brain, logger);
    // Embedded, this process holding the data directory: it listened before the brain was open.
    // Serving through another running brain, there is nothing of its own to open.
    if (brain.listenedFirst) {
      const { brainOpen } = await import('./up.js');
      process.stderr.write(`claude-brain: ${await brainOpen(brain, phases)}\n`);
    }
    await new Promise(() => undefined);
    return 0;
  },
};
