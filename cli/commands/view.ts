import { DEFAULT_VIEW_PORT, loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { findRunning } from '../../db/running-file.js';
import { CliError, parse } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain view [--port N]';

export const view: Command = {
  usage,
  summary: 'Serve the read-only web view of every subject (overview, cards and history, health, upcasts, outbox) as the audit role; `brain up` starts it too.',
  async run(args) {
    const { values } = parse(args, { port: { type: 'string' } }, usage);
    const rt = loadRuntimeConfig();
    const cfg = loadSubjects(rt.subjectsFile);
    const port = values.port === undefined ? (rt.viewPort ?? DEFAULT_VIEW_PORT) : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be a port number');
    // The embedded brain is one process's: a running `brain up` already serves the view.
    const running = rt.mode === 'embedded' ? findRunning(rt.home) : undefined;
    if (running) {
      throw new CliError(
        `the embedded brain is held by ${running.command} (process ${running.pid}), which serves the web view itself at http://127.0.0.1:${rt.viewPort ?? DEFAULT_VIEW_PORT}/ (unless BRAIN_VIEW_PORT=off there)`,
      );
    }
    const [{ createLogger }, { openAdmin, runBootstrap }, { openViewAuditDb, startView, viewTokenFor }, { chooseEmbedder }] = await Promise.all([
      import('../../services/runtime/logger.js'),
      import('../../db/open.js'),
      import('../../services/view/start.js'),
      import('../../services/runtime/embedding.js'),
    ]);
    const logger = createLogger('claude-brain', process.env.BRAIN_LOG_LEVEL ?? 'warn');
    const choosing = chooseEmbedder(rt);
    choosing.catch(() => undefined);
    // Embedded: this process opens the data directory (bootstrapping it if it changed), and the
    // view reads it as the audit role; a server: the audit role's own login.
    const admin = rt.mode === 'embedded' ? await openAdmin(rt) : undefined;
    try {
      if (admin) await runBootstrap(rt, admin, cfg, { skipIfCurrent: true });
      const embedder = (await choosing).embedder;
      const running = await startView({
        config: cfg,
        audit: openViewAuditDb(rt, cfg, admin?.embedded, rt.dbPasswordFile),
        host: rt.host,
        port,
        allowedHosts: rt.allowedHosts,
        token: viewTokenFor(rt, cfg),
        logger,
        embedder,
      });
      process.stdout.write(`claude-brain: web view (read-only, as ${cfg.auditRole}) at ${running.url}\nStop with Ctrl-C.\n`);
      let stopping = false;
      const stop = () => {
        if (stopping) process.exit(1);
        stopping = true;
        void running
          .close()
          .then(() => admin?.close())
          .then(
            () => process.exit(0),
            () => process.exit(1),
          );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    } catch (error) {
      await admin?.close().catch(() => undefined);
      throw error;
    }
    await new Promise(() => undefined);
    return 0;
  },
};
