// A card's history: every version with what changed and the body's line diff
// (knowledge/history.ts, as the `history` tool reads it); `?v=N` shows one version, with
// links to the one before and after it.
import { history, type History, type Version } from '../../knowledge/index.js';
import type { ViewContext } from '../context.js';
import { NotFound } from '../context.js';
import { cardPath, html, when } from '../html.js';
import { layout } from '../layout.js';

export const HISTORY_LIMIT = 200;

export function historyPath(subject: string, slug: string, version?: number): string {
  return cardPath(subject, slug).replace('/card/', '/history/') + (version === undefined ? '' : `?v=${version}`);
}

export async function historyData(view: ViewContext, subject: string, slug: string): Promise<History> {
  return history(view.ctx(subject), { subject, slug, limit: HISTORY_LIMIT });
}

function versionBlock(v: Version) {
  return html`<section class="version" id="v${v.version}">
<h2>v${v.version}${v.current ? ' (current)' : ''} <span class="muted">· ${v.origin} ${when(v.at)} by ${v.by ?? 'unknown'}${v.operation ? ` · ${v.operation}` : ''}</span></h2>
${v.reason ? html`<p>Reason: ${v.reason}</p>` : ''}
${v.archived ? html`<p class="flag">archived${v.mergedInto ? ` (merged into ${v.mergedInto})` : ''}</p>` : ''}
${v.changes.length > 0 ? html`<table><thead><tr><th>field</th><th>from</th><th>to</th></tr></thead><tbody>${v.changes.map((c) => html`<tr><td>${c.field}</td><td class="muted">${c.from}</td><td>${c.to}</td></tr>`)}</tbody></table>` : ''}
${v.text ? html`<p class="muted">body: ${v.text.removed} line(s) removed, ${v.text.added} added</p><pre class="diff">${v.text.lines.join('\n')}</pre>` : v.version === 1 ? html`<p class="muted">The card as first written.</p>` : html`<p class="muted">Body unchanged.</p>`}
</section>`;
}

export function renderHistory(view: ViewContext, subject: string, slug: string, h: History, only?: number): string {
  const title = String(h.versions[0]?.state.title ?? slug);
  let content;
  if (only !== undefined) {
    const v = h.versions.find((x) => x.version === only);
    if (!v) throw new NotFound(`${subject}:${slug} has no version ${only} (it has ${h.total})`);
    content = html`<p class="pager">${only > 1 ? html`<a href="${historyPath(subject, slug, only - 1)}" rel="prev">← v${only - 1}</a> · ` : ''}version ${only} of ${h.total}${only < h.total ? html` · <a href="${historyPath(subject, slug, only + 1)}" rel="next">v${only + 1} →</a>` : ''} · <a href="${historyPath(subject, slug)}">all versions</a></p>
${versionBlock(v)}`;
  } else {
    content = html`<p class="muted">${h.total} version(s), newest first${h.total > h.versions.length ? `; the newest ${h.versions.length} shown` : ''}.</p>
${h.versions.map(versionBlock)}`;
  }
  const deleted = h.deleted ? html`<p class="flag">Deleted ${when(h.deleted.at)} by ${h.deleted.by}${h.deleted.reason ? `: ${h.deleted.reason}` : ''}</p>` : '';
  return layout(
    { title: `History of ${title}`, section: 'subjects', subjects: view.subjects },
    html`<p><a href="${cardPath(subject, slug)}">← the card</a> · <code>${subject}:${slug}</code></p>${deleted}${content}`,
  );
}
