// One card: the body rendered as markdown (HTML in it shown as text), its timeline, links and
// backlinks (as a graph and as lists), sources, tags, and its versions, each linking to the
// history page with its diff. Read with knowledge/get.ts, as the `get` tool reads it.
import { getTopic, type TopicView } from '../../knowledge/index.js';
import type { ViewContext } from '../context.js';
import { linkGraph } from '../graph.js';
import { cardPath, html, when } from '../html.js';
import { layout } from '../layout.js';
import { renderMarkdown } from '../markdown.js';
import { historyPath } from './history.js';

export const CARD_TIMELINE_LIMIT = 100;

export async function cardData(view: ViewContext, subject: string, slug: string): Promise<TopicView> {
  return getTopic(view.ctx(subject), {
    subject,
    slug,
    include: ['timeline', 'links', 'backlinks', 'tags', 'sources', 'history'],
    timelineLimit: CARD_TIMELINE_LIMIT,
  });
}

export function renderCard(view: ViewContext, subject: string, card: TopicView): string {
  const links = card.links ?? [];
  const backlinks = card.backlinks ?? [];
  const versions = card.history?.versions ?? [];
  const body = html`<p class="muted">${subject} · ${card.kind} · <code>${card.slug}</code> · created ${when(card.createdAt)} · updated ${when(card.updatedAt)}</p>
${card.summary ? html`<p><strong>${card.summary}</strong></p>` : ''}
<p class="tags">${(card.tags ?? []).map((t) => html`<a class="tag" href="/s/${subject}?tag=${encodeURIComponent(t)}">${t}</a>`)}</p>
<div class="split">
<div>
<h2>Body</h2>
<article class="body" id="card-body">${card.body.trim() ? renderMarkdown(card.body) : html`<p class="muted">(no body)</p>`}</article>
${card.timeline.trim() ? html`<h2>Timeline notes</h2><article class="body">${renderMarkdown(card.timeline)}</article>` : ''}
</div>
<div>
<h2>Timeline</h2>
${(card.timelineEntries ?? []).length === 0 ? html`<p class="muted">No episodes.</p>` : ''}
<ol class="timeline">${(card.timelineEntries ?? []).map((e) => html`<li><strong>${when(e.occurredAt).slice(0, e.dateOnly ? 10 : 22)}</strong> ${e.title} <span class="muted">(${e.kind})</span>${e.summary ? html`<br><span class="muted">${e.summary}</span>` : ''}</li>`)}</ol>
<h2>Sources</h2>
${(card.sources ?? []).length === 0 ? html`<p class="muted">No sources.</p>` : ''}
<ul>${(card.sources ?? []).map((s) => html`<li>${s.title ?? s.uri ?? `document ${s.documentId}`}${s.locator ? html` <span class="muted">${s.locator}</span>` : ''}${s.quote ? html`<br><q>${s.quote}</q>` : ''}</li>`)}</ul>
</div>
</div>
<h2>Links</h2>
${linkGraph(subject, card.slug, links, backlinks)}
<table><thead><tr><th>direction</th><th>relation</th><th>card</th><th>context</th></tr></thead><tbody>
${links.map((l) => html`<tr><td>out</td><td>${l.relation}</td><td><a href="${cardPath(l.toSubject, l.toSlug)}">${l.toSubject}:${l.toSlug}</a></td><td class="muted">${l.context}</td></tr>`)}
${backlinks.map((l) => html`<tr><td>in</td><td>${l.relation}</td><td><a href="${cardPath(l.fromSubject, l.fromSlug)}">${l.fromSubject}:${l.fromSlug}</a></td><td class="muted">${l.context}</td></tr>`)}
</tbody></table>
<h2>History</h2>
<p><a href="${historyPath(subject, card.slug)}" id="history-link">All ${card.history?.total ?? versions.length} version(s) with their diffs</a></p>
<table class="versions"><thead><tr><th>version</th><th>when</th><th>by</th><th>operation</th><th>reason</th><th>changed</th></tr></thead><tbody>
${versions.map(
  (v) => html`<tr><td><a href="${historyPath(subject, card.slug, v.version)}">v${v.version}</a>${v.current ? html` <span class="muted">(current)</span>` : ''}</td><td>${when(v.at)}</td><td>${v.by ?? '—'}</td><td>${v.operation ?? v.origin}</td><td>${v.reason ?? ''}</td><td>${[...v.changes.map((c) => c.field), ...(v.text ? ['body'] : [])].join(', ') || (v.origin === 'created' ? 'created' : '')}</td></tr>`,
)}
</tbody></table>`;
  return layout({ title: card.title, section: 'subjects', subjects: view.subjects }, body);
}
