// The upcast audit: every write into personal by a project's role, with the reason it gave;
// reason-less ones (flagged by the outbox trigger) first. Read from personal.audit_upcasts
// (migrations/subject/0008_audit_views.sql), the view psql users query.
import { sql } from 'kysely';
import { PERSONAL } from '../../../config/subjects.js';
import type { ViewContext } from '../context.js';
import { cardPath, html, when } from '../html.js';
import { layout } from '../layout.js';

export const UPCAST_LIMIT = 500;

export interface UpcastRow {
  id: number;
  at: Date;
  actor: string;
  operation: string;
  table_name: string;
  slug: string | null;
  app_operation: string | null;
  reason: string | null;
  flagged: boolean;
}

export async function upcastData(view: ViewContext): Promise<{ rows: UpcastRow[]; flagged: number; total: number }> {
  const v = sql.table(`${PERSONAL}.audit_upcasts`);
  const rows = (await sql<UpcastRow>`SELECT * FROM ${v} ORDER BY flagged DESC, id DESC LIMIT ${UPCAST_LIMIT}`.execute(view.db)).rows;
  const [c] = (await sql<{ total: number; flagged: number }>`SELECT count(*)::int AS total, count(*) FILTER (WHERE flagged)::int AS flagged FROM ${v}`.execute(view.db)).rows;
  return { rows, flagged: c?.flagged ?? 0, total: c?.total ?? 0 };
}

/** The subject whose role made the write: the role name less the prefix. */
function subjectOf(view: ViewContext, actor: string): string {
  return actor.startsWith(view.config.rolePrefix) ? actor.slice(view.config.rolePrefix.length) : actor;
}

export function renderUpcasts(view: ViewContext, d: Awaited<ReturnType<typeof upcastData>>): string {
  const body = html`<p>${d.total} write(s) into personal by a project's role; <span class="${d.flagged > 0 ? 'flag' : ''}">${d.flagged} without a reason</span>, listed first.${d.total > d.rows.length ? ` The newest ${d.rows.length} shown.` : ''}</p>
<table class="upcasts"><thead><tr><th></th><th>when</th><th>from</th><th>operation</th><th>table</th><th>card</th><th>reason</th></tr></thead><tbody>
${d.rows.map(
  (r) => html`<tr class="${r.flagged ? 'flagged' : ''}"><td>${r.flagged ? html`<span class="flag" title="no reason given">⚑ no reason</span>` : ''}</td><td>${when(r.at)}</td><td>${subjectOf(view, r.actor)}</td>
<td>${r.app_operation ?? r.operation.toLowerCase()}</td><td>${r.table_name}</td><td>${r.slug && r.table_name === 'topics' ? html`<a href="${cardPath(PERSONAL, r.slug)}">${r.slug}</a>` : (r.slug ?? '')}</td><td>${r.reason ?? html`<span class="muted">—</span>`}</td></tr>`,
)}
</tbody></table>
${d.rows.length === 0 ? html`<p class="muted">No project has written into personal.</p>` : ''}`;
  return layout({ title: 'Upcasts into personal', section: 'upcasts', subjects: view.subjects }, body);
}
