// The outbox as a log: every insert, update and delete the triggers recorded, newest first,
// filtered by subject, writer, table, operation, upcasts or flagged writes only, and date.
import { sql } from 'kysely';
import type { ViewContext } from '../context.js';
import { BadRequest } from '../context.js';
import { cardPath, html, query, when } from '../html.js';
import { layout } from '../layout.js';

export const OUTBOX_PAGE = 100;
const OPERATIONS = ['INSERT', 'UPDATE', 'DELETE'] as const;

export interface OutboxParams {
  subject?: string | undefined;
  actor?: string | undefined;
  table?: string | undefined;
  operation?: string | undefined;
  only?: 'upcasts' | 'flagged' | undefined;
  since?: string | undefined;
  /** Paging: rows strictly older than this timestamp (the last row's `at` on the page before). */
  before?: string | undefined;
}

export interface OutboxEntry {
  subject: string;
  id: number;
  at: Date;
  actor: string;
  operation: string;
  table_name: string;
  row_id: string;
  slug: string | null;
  app_operation: string | null;
  reason: string | null;
  is_upcast: boolean;
  flagged: boolean;
}

function date(value: string | undefined, name: string): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new BadRequest(`${name}: not a date (use YYYY-MM-DD)`);
  return d;
}

export async function outboxData(view: ViewContext, p: OutboxParams): Promise<OutboxEntry[]> {
  if (p.operation && !OPERATIONS.includes(p.operation as (typeof OPERATIONS)[number])) throw new BadRequest(`operation: one of ${OPERATIONS.join(', ')}`);
  const subjects = p.subject ? [view.ctx(p.subject).subject.name] : view.subjects;
  const since = date(p.since, 'since');
  const before = date(p.before, 'before');
  const all: OutboxEntry[] = [];
  for (const s of subjects) {
    const where = [
      p.actor ? sql`actor = ${p.actor}` : undefined,
      p.table ? sql`table_name = ${p.table}` : undefined,
      p.operation ? sql`operation = ${p.operation}` : undefined,
      p.only === 'upcasts' ? sql`is_upcast` : p.only === 'flagged' ? sql`flagged` : undefined,
      since ? sql`at >= ${since}` : undefined,
      before ? sql`at < ${before}` : undefined,
    ].filter((w) => w !== undefined);
    const rows = await sql<Omit<OutboxEntry, 'subject'>>`
      SELECT id, at, actor, operation, table_name, row_id, slug, app_operation, reason, is_upcast, flagged
        FROM ${sql.table(`${s}.outbox`)} ${where.length ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``}
       ORDER BY at DESC, id DESC LIMIT ${OUTBOX_PAGE}`.execute(view.db);
    all.push(...rows.rows.map((r) => ({ ...r, subject: s })));
  }
  return all.sort((a, b) => new Date(b.at).getTime() - new Date(a.at).getTime() || b.id - a.id).slice(0, OUTBOX_PAGE);
}

export function renderOutbox(view: ViewContext, p: OutboxParams, rows: OutboxEntry[]): string {
  const sel = (name: string, options: readonly string[], current: string | undefined, any = 'any') =>
    html`<select name="${name}"><option value="">${any}</option>${options.map((o) => html`<option${o === current ? html` selected` : ''}>${o}</option>`)}</select>`;
  const form = html`<form class="filters" method="get" action="/outbox">
<label>subject${sel('subject', view.subjects, p.subject, 'all')}</label>
<label>writer (role)<input name="actor" value="${p.actor ?? ''}" placeholder="${view.config.rolePrefix}homelab"></label>
<label>table<input name="table" value="${p.table ?? ''}" placeholder="topics"></label>
<label>operation${sel('operation', OPERATIONS, p.operation)}</label>
<label>only${sel('only', ['upcasts', 'flagged'], p.only, 'all writes')}</label>
<label>since<input type="date" name="since" value="${p.since ?? ''}"></label>
<button type="submit">Filter</button>
</form>`;
  const last = rows.at(-1);
  const next = rows.length === OUTBOX_PAGE && last ? `/outbox${query({ ...p, before: new Date(last.at).toISOString() })}` : undefined;
  const body = html`${form}
<table class="outbox"><thead><tr><th>when</th><th>subject</th><th>writer</th><th>operation</th><th>table</th><th>row</th><th>app operation</th><th>reason</th><th></th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${when(r.at)}</td><td>${r.subject}</td><td>${r.actor}</td><td>${r.operation}</td><td>${r.table_name}</td>
<td>${r.slug && r.table_name === 'topics' ? html`<a href="${cardPath(r.subject, r.slug)}">${r.slug}</a>` : (r.slug ?? r.row_id)}</td><td>${r.app_operation ?? ''}</td><td>${r.reason ?? ''}</td>
<td>${r.flagged ? html`<span class="flag">⚑ upcast without reason</span>` : r.is_upcast ? html`<span class="muted">upcast</span>` : ''}</td></tr>`,
)}
</tbody></table>
${rows.length === 0 ? html`<p class="muted">No writes match.</p>` : ''}
${next ? html`<p class="pager"><a href="${next}" rel="next">older →</a></p>` : ''}`;
  return layout({ title: 'Outbox', section: 'outbox', subjects: view.subjects }, body);
}
