// Health: per subject, duplicate clusters (lint's pairs weighed by search before add's
// judgement, duplicates.ts), orphans, dead links, stale embeddings and contradiction
// candidates (contradictions.ts); quiet subjects across the brain. The page asks for a lint
// report under a minute old (lint-cache.ts) and waits for it a few seconds at most: at 100k cards
// a new one takes minutes on PGlite, and meanwhile the page shows the last report (or says lint
// is running) and reloads itself until the new one is there.
import { sql } from 'kysely';
import type { ViewContext } from '../context.js';
import { contradictionCandidates, type Contradiction } from '../contradictions.js';
import { clusters, judgedPairs, type Cluster } from '../duplicates.js';
import { cardPath, html, when } from '../html.js';
import { layout } from '../layout.js';
import type { LintEntry } from '../lint-cache.js';

/** The page reuses a lint report this young (the overview's background run, a reload); else it asks for a new one. */
export const HEALTH_LINT_MAX_AGE_MS = 60_000;
/** How long the page waits for the new reports, all subjects together; past it, it shows what it has. */
export const HEALTH_LINT_WAIT_MS = 10_000;
/** While a report is still being made, the page reloads itself this often. */
export const HEALTH_RELOAD_SECONDS = 30;
/** A subject with no write for this long is listed as quiet. */
export const QUIET_DAYS = 30;

export interface SubjectHealth {
  subject: string;
  /** The report shown: the new one, else the last one; undefined while the first is made. */
  lint: LintEntry | undefined;
  /** A new report is still being made. */
  running: boolean;
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

export async function healthData(view: ViewContext, now = new Date(), waitMs = HEALTH_LINT_WAIT_MS): Promise<Health> {
  const subjects: SubjectHealth[] = [];
  const quiet: Health['quiet'] = [];
  // Asked for all at once (they run one after another), waited for together, up to waitMs.
  const asked = view.subjects.map((subject) => view.lint.fresh(subject, HEALTH_LINT_MAX_AGE_MS));
  for (const a of asked) a.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
  try {
    for (const [i, subject] of view.subjects.entries()) {
      const fresh = await Promise.race([asked[i]!, deadline]);
      const lint = fresh ?? view.lint.last(subject);
      const judged = lint ? judgedPairs(lint.value) : [];
      subjects.push({ subject, lint, running: !fresh, clusters: clusters(judged), contradictions: lint ? await contradictionCandidates(view.db, subject, judged) : [] });
      const last = await lastWrite(view, subject);
      if (!last || now.getTime() - last.getTime() > QUIET_DAYS * 86_400_000) quiet.push({ subject, lastWrite: last });
    }
  } finally {
    clearTimeout(timer);
  }
  return { subjects, quiet };
}

function section(s: SubjectHealth) {
  if (!s.lint) {
    return html`<section class="subject-health" data-subject="${s.subject}">
<h2>${s.subject}</h2>
<p class="running">Lint is still running over this subject (at 100k cards it takes minutes); this page reloads itself every ${HEALTH_RELOAD_SECONDS} s until its report is here.</p>
</section>`;
  }
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
<p class="muted">lint ran ${when(s.lint.at)}${s.running ? '; a new lint is running, and this page reloads itself until its report is here' : ''}</p>
</section>`;
}

export function renderHealth(view: ViewContext, h: Health): string {
  const body = html`<h2>Quiet subjects</h2>
<p class="muted">No write for ${QUIET_DAYS} days or more.</p>
${h.quiet.length === 0 ? html`<p class="muted">None.</p>` : ''}
<ul class="quiet">${h.quiet.map((q) => html`<li>${q.subject}: last write ${when(q.lastWrite)}</li>`)}</ul>
${h.subjects.map(section)}`;
  const running = h.subjects.some((s) => s.running);
  return layout({ title: 'Health', section: 'health', subjects: view.subjects, ...(running ? { reloadSeconds: HEALTH_RELOAD_SECONDS } : {}) }, body);
}
