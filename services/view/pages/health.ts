// Health: per subject, duplicate clusters (lint's pairs weighed by search before add's
// judgement, duplicates.ts), orphans, dead links, stale embeddings and contradiction
// candidates (contradictions.ts); quiet subjects across the brain. The page waits for a lint
// report under a minute old (lint-cache.ts): at 100k cards a new one takes tens of seconds on
// PGlite, which this page may take; the overview may not.
import { sql } from 'kysely';
import type { ViewContext } from '../context.js';
import { contradictionCandidates, type Contradiction } from '../contradictions.js';
import { clusters, judgedPairs, type Cluster } from '../duplicates.js';
import { cardPath, html, when } from '../html.js';
import { layout } from '../layout.js';
import type { LintEntry } from '../lint-cache.js';

/** The page reuses a lint report this young (the overview's background run, a reload); else it waits for a new one. */
export const HEALTH_LINT_MAX_AGE_MS = 60_000;
/** A subject with no write for this long is listed as quiet. */
export const QUIET_DAYS = 30;

export interface SubjectHealth {
  subject: string;
  lint: LintEntry;
  clusters: Cluster[];
  contradictions: Contradiction[];
}

export interface Health {
  subjects: SubjectHealth[];
  quiet: { subject: string; lastWrite: Date | null }[];
}

export async function lastWrite(view: ViewContext, subject: string): Promise<Date | null> {
  const [row] = (await sql<{ at: Date | null }>`SELECT max(at) AS at FROM ${sql.table(`${subject}.outbox`)}`.execute(view.db)).rows;
  return row?.at ? new Date(row.at) : null;
}

export async function healthData(view: ViewContext, now = new Date()): Promise<Health> {
  const subjects: SubjectHealth[] = [];
  const quiet: Health['quiet'] = [];
  for (const subject of view.subjects) {
    const lint = await view.lint.fresh(subject, HEALTH_LINT_MAX_AGE_MS);
    const judged = judgedPairs(lint.value);
    subjects.push({ subject, lint, clusters: clusters(judged), contradictions: await contradictionCandidates(view.db, subject, judged) });
    const last = await lastWrite(view, subject);
    if (!last || now.getTime() - last.getTime() > QUIET_DAYS * 86_400_000) quiet.push({ subject, lastWrite: last });
  }
  return { subjects, quiet };
}

function section(s: SubjectHealth) {
  const r = s.lint.value;
  const card = (slug: string) => html`<a href="${cardPath(s.subject, slug)}">${slug}</a>`;
  return html`<section class="subject-health" data-subject="${s.subject}">
<h2>${s.subject}</h2>
<h3>Duplicate clusters (${s.clusters.length})</h3>
${s.clusters.length === 0 ? html`<p class="muted">None.</p>` : ''}
<ul class="clusters">${s.clusters.map((c) => html`<li>${c.slugs.map((x, i) => html`${i > 0 ? ', ' : ''}${card(x)}`)} <span class="muted">(${c.pairs.map((p) => `${p.verdict} p=${p.score} by ${p.by}${p.titleSimilarity !== null ? ` title ${p.titleSimilarity}` : ''}${p.cosine !== null ? ` cosine ${p.cosine}` : ''}`).join('; ')})</span></li>`)}</ul>
<h3>Contradiction candidates (${s.contradictions.length})</h3>
${s.contradictions.length === 0 ? html`<p class="muted">None found.</p>` : ''}
<table class="contradictions">${s.contradictions.map((c) => html`<tr><td>${card(c.a)}<br><q>${c.saysA}</q></td><td>${card(c.b)}<br><q>${c.saysB}</q></td><td class="muted">${c.sign}</td></tr>`)}</table>
<h3>Orphans (${r.orphans.length})</h3>
<p class="muted">Cards with no link in or out and no episode.</p>
<ul class="orphans">${r.orphans.map((o) => html`<li>${card(o.slug)} ${o.title}</li>`)}</ul>
<h3>Dead links (${r.deadLinks.length + r.archivedLinks.length})</h3>
<ul class="dead-links">${r.deadLinks.map((l) => html`<li>${card(l.from)} → ${l.toSubject}:${l.toSlug} <span class="muted">(${l.relation}; the card is gone)</span></li>`)}
${r.archivedLinks.map((l) => html`<li>${card(l.from)} → ${l.toSubject}:${l.toSlug} <span class="muted">(${l.relation}; archived${l.mergedInto ? `, merged into ${l.mergedInto}` : ''})</span></li>`)}</ul>
<h3>Stale embeddings</h3>
<p>${r.staleEmbeddings === null ? html`<span class="muted">not checked: no embedder in this process</span>` : `${r.staleEmbeddings} card(s) and episode(s) waiting for an embedding`}</p>
${r.notes.length ? html`<p class="muted">${r.notes.join('; ')}</p>` : ''}
<p class="muted">lint ran ${when(s.lint.at)}</p>
</section>`;
}

export function renderHealth(view: ViewContext, h: Health): string {
  const body = html`<h2>Quiet subjects</h2>
<p class="muted">No write for ${QUIET_DAYS} days or more.</p>
${h.quiet.length === 0 ? html`<p class="muted">None.</p>` : ''}
<ul class="quiet">${h.quiet.map((q) => html`<li>${q.subject}: last write ${when(q.lastWrite)}</li>`)}</ul>
${h.subjects.map(section)}`;
  return layout({ title: 'Health', section: 'health', subjects: view.subjects }, body);
}
