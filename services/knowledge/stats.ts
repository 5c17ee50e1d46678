// Counts for one subject: cards per kind, links, tags, episodes, raw data, documents, and what
// GBrain import left. One query per subject, as that subject's role; the MCP `list what=stats`
// and `brain stats` render the same figures (services/mcp/stats.ts, cli/commands/stats.ts).
import { sql, type RawBuilder } from 'kysely';
import type { BrainContext } from './context.js';
import { targetSubject } from './context.js';

export interface SubjectStats {
  subject: string;
  /** Live cards (topics), all kinds; archived ones are counted apart. */
  topics: number;
  /** Cards per kind, most first (ties by name); kinds with no card are left out. */
  byKind: Record<string, number>;
  links: number;
  /** Tag assignments: a tag on three cards counts three. */
  tags: number;
  distinctTags: number;
  /** Archived cards (knowledge/archive.ts), merged ones included. */
  archived: number;
  episodes: number;
  raw: number;
  documents: number;
  importedPages: number;
  ingestRecords: number;
}

/**
 * The tables the figures are counted from, each with the figures its rows make. Every write to
 * them leaves a row in the subject's outbox naming the table, so a reader that knows which
 * tables were written since it last counted can count those again and keep the rest
 * (the web view's overview, services/view/pages/overview.ts).
 */
export const STATS_TABLES = ['topics', 'links', 'topic_tags', 'episodes', 'raw_data', 'documents', 'gbrain_pages', 'gbrain_ingest_log'] as const;
export type StatsTable = (typeof STATS_TABLES)[number];

type Counts = Omit<SubjectStats, 'subject' | 'topics' | 'byKind'>;
/** The count(*) figures, each with its table and the subquery that counts it. */
const COUNTS: { figure: keyof Counts; table: StatsTable; count: (t: ReturnType<typeof sql.table>) => RawBuilder<unknown> }[] = [
  { figure: 'links', table: 'links', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'tags', table: 'topic_tags', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'distinctTags', table: 'topic_tags', count: (t) => sql`SELECT count(DISTINCT tag)::int FROM ${t}` },
  { figure: 'archived', table: 'topics', count: (t) => sql`SELECT count(*)::int FROM ${t} WHERE archived_at IS NOT NULL` },
  { figure: 'episodes', table: 'episodes', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'raw', table: 'raw_data', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'documents', table: 'documents', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'importedPages', table: 'gbrain_pages', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
  { figure: 'ingestRecords', table: 'gbrain_ingest_log', count: (t) => sql`SELECT count(*)::int FROM ${t}` },
];

/**
 * `since`: figures counted before, of which only those made by the `changed` tables are counted
 * again (the others are taken from it as they are).
 */
export async function subjectStats(ctx: BrainContext, subject?: string, since?: { stats: SubjectStats; changed: ReadonlySet<StatsTable> }): Promise<SubjectStats> {
  const s = targetSubject(ctx, subject);
  const t = (name: string) => sql.table(`${s}.${name}`);
  const recount = (table: StatsTable) => !since || since.changed.has(table);
  const counts = COUNTS.filter((c) => recount(c.table));
  // Live cards per kind: counted from the kind index and the few archived cards (the partial
  // index of migrations/subject/0009), never from the cards themselves, which at 100k cards
  // are over 100 MB to read.
  const kinds = recount('topics')
    ? (
        await sql<{ kind: string; n: number }>`
          SELECT kind, (count(*) - coalesce((SELECT count(*) FROM ${t('topics')} a WHERE a.archived_at IS NOT NULL AND a.kind = k.kind), 0))::int AS n
            FROM ${t('topics')} k GROUP BY kind`.execute(ctx.db)
      ).rows
        .filter((r) => r.n > 0)
        .sort((a, b) => b.n - a.n || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
    : undefined;
  const [c] = counts.length
    ? (await sql<Partial<Counts>>`SELECT ${sql.join(counts.map((x) => sql`(${x.count(t(x.table))}) AS ${sql.ref(x.figure)}`))}`.execute(ctx.db)).rows
    : [{}];
  const byKind = kinds ? Object.fromEntries(kinds.map((r) => [r.kind, r.n])) : since!.stats.byKind;
  const previous: Partial<SubjectStats> = since?.stats ?? {};
  return {
    ...(previous as SubjectStats),
    ...c,
    subject: s,
    topics: Object.values(byKind).reduce((n, k) => n + k, 0),
    byKind,
  };
}

export interface StatsFigure {
  /** Plural, ending in -s (the MCP line drops it for a count of one). */
  label: string;
  value: number;
  /** Cards: the count per kind, which the CLI shows as rows and MCP inline. */
  breakdown?: [string, number][];
  /** A qualifier shown after the value, e.g. "4 distinct". */
  detail?: string;
}

/** The figures in the order, and with the labels, both renderers show them. */
export function statsFigures(s: SubjectStats): StatsFigure[] {
  return [
    { label: 'cards', value: s.topics, breakdown: Object.entries(s.byKind) },
    // Shown once there are any: archived cards are out of every listing, but not gone.
    ...(s.archived > 0 ? [{ label: 'archived cards', value: s.archived }] : []),
    { label: 'episodes', value: s.episodes },
    { label: 'links', value: s.links },
    { label: 'tags', value: s.tags, detail: `${s.distinctTags} distinct` },
    { label: 'raw records', value: s.raw },
    { label: 'documents', value: s.documents },
    { label: 'imported pages', value: s.importedPages },
    { label: 'ingest records', value: s.ingestRecords },
  ];
}
