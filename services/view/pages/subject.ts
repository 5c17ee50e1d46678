// The subject browser: the subject's cards, newest first, filtered by kind, tag and date
// (knowledge/topics.ts listTopics); with a question, the product's own search
// (search/search.ts) under the same filters, episodes included.
import { allTags, listTopics, type TopicSummary } from '../../knowledge/index.js';
import { search, type SearchResult } from '../../search/index.js';
import type { ViewContext } from '../context.js';
import { cardPath, html, query, when } from '../html.js';
import { layout } from '../layout.js';

export const PAGE_SIZE = 50;

export interface BrowseParams {
  q?: string | undefined;
  kind?: string | undefined;
  tag?: string | undefined;
  since?: string | undefined;
  page?: number | undefined;
}

export type Browse = { params: BrowseParams; tags: { tag: string; count: number }[] } & ({ mode: 'list'; cards: TopicSummary[] } | { mode: 'search'; result: SearchResult });

export async function browseData(view: ViewContext, subject: string, params: BrowseParams): Promise<Browse> {
  const ctx = view.ctx(subject);
  const tags = await allTags(ctx, { subject });
  if (params.q) {
    const result = await search(
      ctx,
      {
        query: params.q,
        subject,
        kinds: params.kind ? [params.kind] : [],
        tags: params.tag ? [params.tag] : [],
        ...(params.since ? { since: params.since } : {}),
        limit: PAGE_SIZE,
      },
      view.searchDeps,
    );
    return { params, tags, mode: 'search', result };
  }
  const cards = await listTopics(ctx, {
    subject,
    ...(params.kind ? { kind: params.kind } : {}),
    ...(params.tag ? { tag: params.tag } : {}),
    ...(params.since ? { updatedSince: params.since } : {}),
    limit: PAGE_SIZE + 1,
    offset: ((params.page ?? 1) - 1) * PAGE_SIZE,
  });
  return { params, tags, mode: 'list', cards };
}

/** Search marks the matched words with ** (search/snippets.ts): shown as <mark>, the text escaped. */
function marked(snippet: string) {
  return snippet.split('**').map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : part));
}

export function renderSubject(view: ViewContext, subject: string, b: Browse): string {
  const p = b.params;
  const kinds = view.kinds.filter((k) => b.mode === 'search' || k.class === 'topic');
  const form = html`<form class="filters" method="get" action="/s/${subject}">
<label>search<input type="search" name="q" value="${p.q ?? ''}" placeholder="the product's own search"></label>
<label>kind<select name="kind"><option value="">any</option>${kinds.map((k) => html`<option${k.name === p.kind ? html` selected` : ''}>${k.name}</option>`)}</select></label>
<label>tag<select name="tag"><option value="">any</option>${b.tags.map((t) => html`<option value="${t.tag}"${t.tag === p.tag ? html` selected` : ''}>${t.tag} (${t.count})</option>`)}</select></label>
<label>updated since<input type="date" name="since" value="${p.since ?? ''}"></label>
<button type="submit">Show</button>
</form>`;
  const tabs = html`<p>${view.subjects.map((s) => (s === subject ? html`<strong>${s}</strong> ` : html`<a href="/s/${s}">${s}</a> `))}</p>`;
  let list;
  if (b.mode === 'search') {
    const r = b.result;
    list = html`<p class="muted">${r.hits.length} hit(s), ${r.mode} search${r.belowFloor > 0 ? `; ${r.belowFloor} candidate(s) below the relevance floor left out` : ''}.${r.warnings.map((w) => html` ${w}`)}</p>
<table class="results"><thead><tr><th>title</th><th>kind</th><th>type</th><th class="num">relevance</th><th>snippet</th></tr></thead><tbody>
${r.hits.map(
  (h) => html`<tr><td>${h.slug ? html`<a href="${cardPath(h.subject, h.slug)}">${h.title}</a>` : html`${h.title} <span class="muted">(${when(h.occurredAt)})</span>`}${h.subject !== subject ? html` <span class="muted">[${h.subject}]</span>` : ''}</td>
<td>${h.kind}</td><td>${h.type}</td><td class="num">${h.relevance.toFixed(2)}</td><td class="muted">${marked(h.snippet)}</td></tr>`,
)}
</tbody></table>`;
  } else {
    const page = p.page ?? 1;
    const more = b.cards.length > PAGE_SIZE;
    const cards = b.cards.slice(0, PAGE_SIZE);
    const link = (n: number) => `/s/${subject}${query({ kind: p.kind, tag: p.tag, since: p.since, page: n })}`;
    list = html`<table class="results"><thead><tr><th>title</th><th>kind</th><th>summary</th><th>updated</th></tr></thead><tbody>
${cards.map((c) => html`<tr><td><a href="${cardPath(subject, c.slug)}">${c.title}</a></td><td>${c.kind}</td><td class="muted">${c.summary}</td><td>${when(c.updatedAt)}</td></tr>`)}
</tbody></table>
${cards.length === 0 ? html`<p class="muted">No cards match.</p>` : ''}
<p class="pager">${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">← newer</a> ` : ''}page ${page}${more ? html` <a href="${link(page + 1)}" rel="next">older →</a>` : ''}</p>`;
  }
  return layout({ title: `Subject ${subject}`, section: 'subjects', subjects: view.subjects }, html`${tabs}${form}${list}`);
}
