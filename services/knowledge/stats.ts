// Counts for one subject: cards per kind, links, tags, episodes, raw data, documents, and what
// GBrain import left. One query per subject, as that subject's role; the MCP `list what=stats`
// and `brain stats` render the same figures (services/mcp/stats.ts, cli/commands/stats.ts).
import { sql } from 'kysely';
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

export async function subjectStats(ctx: BrainContext, subject?: string): Promise<SubjectStats> {
  const s = targetSubject(ctx, subject);
  const t = (name: string) => sql.table(`${s}.${name}`);
  const kinds = await sql<{ kind: string; n: number }>`SELECT kind, count(*)::int AS n FROM ${t('topics')} WHERE archived_at IS NULL GROUP BY kind ORDER BY n DESC, kind`.execute(ctx.db);
  const [c] = (
    await sql<Omit<SubjectStats, 'subject' | 'topics' | 'byKind'>>`
      SELECT (SELECT count(*)::int FROM ${t('links')}) AS links,
             (SELECT count(*)::int FROM ${t('topic_tags')}) AS tags,
             (SELECT count(DISTINCT tag)::int FROM ${t('topic_tags')}) AS "distinctTags",
             (SELECT count(*)::int FROM ${t('topics')} WHERE archived_at IS NOT NULL) AS archived,
             (SELECT count(*)::int FROM ${t('episodes')}) AS episodes,
             (SELECT count(*)::int FROM ${t('raw_data')}) AS raw,
             (SELECT count(*)::int FROM ${t('documents')}) AS documents,
             (SELECT count(*)::int FROM ${t('gbrain_pages')}) AS "importedPages",
             (SELECT count(*)::int FROM ${t('gbrain_ingest_log')}) AS "ingestRecords"`.execute(ctx.db)
  ).rows;
  return {
    subject: s,
    topics: kinds.rows.reduce((n, r) => n + r.n, 0),
    byKind: Object.fromEntries(kinds.rows.map((r) => [r.kind, r.n])),
    ...c!,
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
