// The web view's fastify app: one GET route per page (pages/), the stylesheet, a health check.
// Every page reads through the audit handle (audit-db.ts); nothing here can write.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { BrainError } from '../knowledge/errors.js';
import { noSchemas } from '../mcp/http.js';
import { BadRequest, NotFound, type ViewContext } from './context.js';
import { escapeHtml } from './html.js';
import { ICON, layout, STYLESHEET } from './layout.js';
import { cardData, renderCard } from './pages/card.js';
import { healthData, renderHealth } from './pages/health.js';
import { historyData, renderHistory } from './pages/history.js';
import { outboxData, renderOutbox, type OutboxParams } from './pages/outbox.js';
import { overviewData, refreshFigures, renderOverview } from './pages/overview.js';
import { browseData, renderSubject } from './pages/subject.js';
import { renderUpcasts, upcastData } from './pages/upcasts.js';
import { applySecurity } from './security.js';
import { QuietRequestLog } from '../runtime/request-log.js';
import { html } from './html.js';

export interface ViewAppOptions {
  view: ViewContext;
  logger: Logger;
  allowedHosts?: readonly string[];
  token?: string | undefined;
}

/** One query-string value: the first when repeated, undefined when empty. */
function one(q: unknown, name: string): string | undefined {
  const v = (q as Record<string, unknown>)[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
}

function positive(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new BadRequest(`${name}: a whole number from 1`);
  return n;
}

function page(reply: FastifyReply, body: string) {
  return reply.type('text/html; charset=utf-8').send(body);
}

/** The app, with the paths of its routes (so a test can try every method on every one). */
export type ViewApp = FastifyInstance & { readonly viewRoutes: readonly string[] };

export async function buildViewApp(opts: ViewAppOptions): Promise<ViewApp> {
  const { view } = opts;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    logController: new QuietRequestLog(),
    requestTimeout: 60_000,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
  });
  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    if (!routes.includes(route.url)) routes.push(route.url);
  });
  app.decorate('viewRoutes', routes);
  applySecurity(app, { allowedHosts: opts.allowedHosts, token: opts.token });

  const errorPage = (reply: FastifyReply, status: number, message: string) =>
    page(reply.code(status), layout({ title: status === 404 ? 'Not found' : status === 400 ? 'Bad request' : 'Error', section: 'overview', subjects: view.subjects }, html`<p>${message}</p><p><a href="/">Overview</a></p>`));
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof NotFound) return errorPage(reply, 404, error.message);
    if (error instanceof BadRequest) return errorPage(reply, 400, error.message);
    if (error instanceof BrainError) {
      if (error.code === 'not_found') return errorPage(reply, 404, error.message);
      if (error.code === 'invalid_input' || error.code === 'unknown_kind' || error.code === 'wrong_kind_class') return errorPage(reply, 400, error.message);
    }
    if (error.statusCode && error.statusCode < 500) return errorPage(reply, error.statusCode, escapeHtml(error.message));
    request.log.error({ err: error }, 'view page failed');
    return errorPage(reply, 500, 'This page failed; the log has the details.');
  });
  app.setNotFoundHandler((_request, reply) => errorPage(reply, 404, 'No such page.'));

  app.get('/healthz', async () => ({ ok: true, view: true }));
  // Ready when the audit role can read: the compose stack's health check asks this.
  app.get('/readyz', async (_request, reply) => {
    const ready = await sql`SELECT 1 FROM brain.kinds LIMIT 1`.execute(view.db).then(
      () => true,
      () => false,
    );
    return reply.code(ready ? 200 : 503).send({ view: true, ready });
  });
  app.get('/assets/view.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
  app.get('/assets/icon.svg', async (_request, reply) => reply.type('image/svg+xml').send(ICON));
  // Browsers ask for it whatever the page says.
  app.get('/favicon.ico', async (_request, reply) => reply.redirect('/assets/icon.svg', 301));

  app.get('/', async (_request, reply) => {
    const overview = await overviewData(view);
    // Lint and the pending count, when due, start once the page is out (refreshFigures says why).
    let asked = false;
    const refresh = () => {
      if (!asked) refreshFigures(view);
      asked = true;
    };
    reply.raw.once('finish', refresh).once('close', refresh);
    return page(reply, renderOverview(view, overview));
  });

  app.get<{ Params: { subject: string } }>('/s/:subject', async (request, reply) => {
    const q = request.query;
    const params = { q: one(q, 'q'), kind: one(q, 'kind'), tag: one(q, 'tag'), since: one(q, 'since'), page: positive(one(q, 'page'), 'page') };
    view.ctx(request.params.subject);
    return page(reply, renderSubject(view, request.params.subject, await browseData(view, request.params.subject, params)));
  });

  app.get<{ Params: { subject: string; '*': string } }>('/s/:subject/card/*', async (request, reply) => {
    const { subject } = request.params;
    const slug = request.params['*'];
    view.ctx(subject);
    return page(reply, renderCard(view, subject, await cardData(view, subject, slug)));
  });

  app.get<{ Params: { subject: string; '*': string } }>('/s/:subject/history/*', async (request, reply) => {
    const { subject } = request.params;
    const slug = request.params['*'];
    view.ctx(subject);
    const only = positive(one(request.query, 'v'), 'v');
    return page(reply, renderHistory(view, subject, slug, await historyData(view, subject, slug), only));
  });

  app.get('/health', async (_request, reply) => page(reply, renderHealth(view, await healthData(view))));
  app.get('/upcasts', async (_request, reply) => page(reply, renderUpcasts(view, await upcastData(view))));
  app.get('/outbox', async (request, reply) => {
    const q = request.query;
    const only = one(q, 'only');
    if (only !== undefined && only !== 'upcasts' && only !== 'flagged') throw new BadRequest('only: upcasts or flagged');
    const params: OutboxParams = {
      subject: one(q, 'subject'),
      actor: one(q, 'actor'),
      table: one(q, 'table'),
      operation: one(q, 'operation'),
      only,
      since: one(q, 'since'),
      before: one(q, 'before'),
    };
    return page(reply, renderOutbox(view, params, await outboxData(view, params)));
  });

  app.addHook('onClose', async () => {
    await Promise.all([view.lint.settle(), view.pending.settle()]);
  });
  return app as unknown as ViewApp;
}
