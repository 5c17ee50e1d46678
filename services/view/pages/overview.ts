// The overview: per subject its cards, episodes, last write, pending embeddings and lint
// counts, and the activity chart (writes per week by subject). The figures come from the
// product's own services (knowledge/stats.ts, search/pending.ts, the lint cache); only the
// week counts are read here, from each subject's outbox through its index on `at`.
import { sql } from 'kysely';
import { subjectStats, type StatsTable, type SubjectStats } from '../../knowledge/stats.js';
import { activityChart, type WeekSeries } from '../chart.js';
import type { ViewContext } from '../context.js';
import { html, when, type Html } from '../html.js';
import { layout } from '../layout.js';
import type { Dated } from '../background.js';
import { LINT_LIMIT, type LintEntry } from '../lint-cache.js';

/** Weeks the chart covers, this one included. */
export const CHART_WEEKS = 26;
/** The overview asks for a new lint report in the background once the last is this old. */
export const LINT_MAX_AGE_MS = 10 * 60_000;
/** And for a new count of pending embeddings once the last is this old. */
export const PENDING_MAX_AGE_MS = 30_000;

export interface SubjectOverview {
  subject: string;
  stats: SubjectStats;
  lastWrite: Date | null;
  /** Cards and episodes waiting for an embedding with the view's embedder (null: none, or no vectors), as last counted. */
  pending: Dated<number | null> | undefined;
  lint: LintEntry | undefined;
}

export interface Overview {
  subjects: SubjectOverview[];
  weeks: Date[];
  series: WeekSeries[];
}

/** Monday 00:00 UTC of the week holding `d` (Postgres's date_trunc('week') in UTC). */
function weekStart(d: Date): Date {
  const day = (d.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day));
}

/** Each piece of the overview timed, for bench/view/overview.ts. */
export type StepTimer = (step: string, ms: number) => void;

async function timed<T>(onStep: StepTimer | undefined, step: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    onStep?.(step, performance.now() - started);
  }
}

/**
 * A subject's figures as of an outbox high-water mark. Every write to the tables these figures
 * count (cards, episodes, links, tags, raw data, documents, imported pages) leaves an outbox row
 * (migrations/subject/0002, 0004), so while the outbox's largest id is unchanged they are too,
 * and the overview reuses them: at 100k cards they are most of its cost. A mark is trusted only
 * when it was read with no writing transaction in flight (its snapshot's xmin = xmax), since a
 * transaction still open then could commit later under a smaller id.
 */
interface SubjectSnapshot {
  mark: number | null;
  /** The first week the counts cover. */
  from: number;
  stats: SubjectStats;
  counts: Map<number, number>;
}

const snapshots = new WeakMap<ViewContext, Map<string, SubjectSnapshot>>();

/** The overview being read, per view: a second request waits for it, then reuses what it read. */
const reading = new WeakMap<ViewContext, Promise<unknown>>();

/**
 * The figures the overview shows; lint and the pending count as last computed (refreshFigures
 * asks for new ones). `reuse: false` reads every figure again (the bench times a request after
 * a write so).
 */
export async function overviewData(view: ViewContext, now = new Date(), onStep?: StepTimer, reuse = true): Promise<Overview> {
  const under = reading.get(view);
  if (under && reuse) await under.catch(() => undefined);
  const read = readOverview(view, now, onStep, reuse);
  reading.set(view, read);
  try {
    return await read;
  } finally {
    if (reading.get(view) === read) reading.delete(view);
  }
}

/**
 * Reads the figures once, when the view starts, so that the first visit finds them: read from
 * nothing at 100k cards they take about a second with a cold cache (docs/view.md). Lint and the
 * pending count are not started: they wait for someone to look.
 */
export function prepareOverview(view: ViewContext): Promise<void> {
  return overviewData(view).then(() => undefined);
}

/**
 * Asks for a new lint report and pending count of every subject whose last is too old, in the
 * background. Call it once the overview has been sent: in the embedded brain every statement
 * runs on this thread (PGlite), so a lint statement started before the reply is written holds
 * the reply back for as long as it runs (about 300 ms at 100k cards).
 */
export function refreshFigures(view: ViewContext): void {
  for (const subject of view.subjects) {
    view.lint.refreshInBackground(subject, LINT_MAX_AGE_MS);
    view.pending.refreshInBackground(subject, PENDING_MAX_AGE_MS);
  }
}

async function readOverview(view: ViewContext, now: Date, onStep: StepTimer | undefined, reuse: boolean): Promise<Overview> {
  const weeks = Array.from({ length: CHART_WEEKS }, (_, i) => new Date(weekStart(now).getTime() - (CHART_WEEKS - 1 - i) * 7 * 86_400_000));
  const from = weeks[0]!.getTime();
  let cache = snapshots.get(view);
  if (!cache) snapshots.set(view, (cache = new Map()));
  const subjects: SubjectOverview[] = [];
  const series: WeekSeries[] = [];
  for (const subject of view.subjects) {
    const ctx = view.ctx(subject);
    const outbox = sql.table(`${subject}.outbox`);
    const [head] = (
      await timed(onStep, 'outbox mark', () =>
        sql<{ mark: number | null; at: Date | null; quiet: boolean }>`
          SELECT max(id) AS mark, max(at) AS at,
                 pg_snapshot_xmin(pg_current_snapshot()) = pg_snapshot_xmax(pg_current_snapshot()) AS quiet
            FROM ${outbox}`.execute(view.db),
      )
    ).rows;
    const mark = head?.mark === null || head?.mark === undefined ? null : Number(head.mark);
    let snap = cache.get(subject);
    if (!reuse || !snap || snap.mark !== mark || snap.from !== from) {
      // With a trusted earlier snapshot of the same weeks, only what the outbox rows after its
      // mark touched is read again: the figures of the tables they name, and (the outbox being
      // append-only) the card writes among them, added to the chart's counts.
      const base = reuse && snap && snap.from === from && snap.mark !== null && mark !== null && mark > snap.mark ? snap : undefined;
      const changed = base
        ? new Set(
            (
              await timed(onStep, 'tables written', () =>
                sql<{ table_name: StatsTable }>`SELECT DISTINCT table_name FROM ${outbox} WHERE id > ${base.mark} AND id <= ${mark}`.execute(view.db),
              )
            ).rows.map((r) => r.table_name),
          )
        : undefined;
      const stats = await timed(onStep, 'stats', () => subjectStats(ctx, subject, base && changed ? { stats: base.stats, changed } : undefined));
      const rows = (
        await timed(onStep, 'writes per week', () =>
          sql<{ week: string; n: number }>`
            SELECT to_char(date_trunc('week', at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS week, count(*)::int AS n FROM ${outbox}
             WHERE at >= ${weeks[0]!} AND table_name IN ('topics', 'episodes') AND id <= ${mark ?? 0}
               ${base ? sql`AND id > ${base.mark}` : sql``}
             GROUP BY 1`.execute(view.db),
        )
      ).rows;
      const counts = new Map(base ? base.counts : []);
      for (const r of rows) {
        const week = Date.parse(`${r.week}T00:00:00Z`);
        counts.set(week, (counts.get(week) ?? 0) + r.n);
      }
      snap = { mark, from, stats, counts };
      if (head?.quiet) cache.set(subject, snap);
      else cache.delete(subject);
    }
    const counts = snap.counts;
    series.push({ subject, counts: weeks.map((w) => counts.get(w.getTime()) ?? 0) });
    subjects.push({ subject, stats: snap.stats, lastWrite: head?.at ? new Date(head.at) : null, pending: view.pending.last(subject), lint: view.lint.last(subject) });
  }
  return { subjects, weeks, series };
}

function count(n: number): string {
  return n >= LINT_LIMIT ? `${LINT_LIMIT}+` : String(n);
}

function pendingFigure(p: Dated<number | null> | undefined): Html {
  if (!p) return html`<span class="muted">counting…</span>`;
  if (p.value === null) return html`<span class="muted" title="no embedder in this process, or no vectors in this database">—</span>`;
  return html`<span title="counted ${when(p.at)}">${p.value}</span>`;
}

function lintSummary(entry: LintEntry | undefined): Html {
  if (!entry) return html`<dt>lint</dt><dd class="muted">running…</dd>`;
  const r = entry.value;
  return html`<dt>orphans</dt><dd>${count(r.orphans.length)}</dd>
<dt>dead links</dt><dd>${count(r.deadLinks.length)}</dd>
<dt>near-duplicates</dt><dd>${count(r.duplicateTopics.length)}</dd>
<dt>flagged upcasts</dt><dd>${r.unexplainedUpcasts.length > 0 ? html`<span class="flag">${count(r.unexplainedUpcasts.length)}</span>` : '0'}</dd>
<dt class="muted">lint as of</dt><dd class="muted">${when(entry.at)}</dd>`;
}

export function renderOverview(view: ViewContext, o: Overview): string {
  const body = html`<section class="cards">
${o.subjects.map(
  (s) => html`<article class="card" data-subject="${s.subject}">
<h2><a href="/s/${s.subject}">${s.subject}</a></h2>
<dl>
<dt>cards</dt><dd class="cards-count">${s.stats.topics}</dd>
${s.stats.archived > 0 ? html`<dt>archived</dt><dd>${s.stats.archived}</dd>` : ''}
<dt>episodes</dt><dd>${s.stats.episodes}</dd>
<dt>links</dt><dd>${s.stats.links}</dd>
<dt>last write</dt><dd>${when(s.lastWrite)}</dd>
<dt>pending embeddings</dt><dd>${pendingFigure(s.pending)}</dd>
${lintSummary(s.lint)}
</dl>
</article>`,
)}
</section>
<h2>Activity</h2>
<p class="muted">Card and episode writes per week (UTC), the last ${o.weeks.length} weeks, from each subject's outbox.</p>
${activityChart(o.weeks, o.series)}`;
  return layout({ title: 'Overview', section: 'overview', subjects: view.subjects }, body);
}
