// What a hit shows: slug (topics), kind, title and a snippet with the matched words marked.
// Fetched only for the hits that are returned, because ts_headline re-parses the text it is
// given; the text is also capped (HEADLINE_INPUT_CHARS) so one huge card cannot make a
// search slow.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../knowledge/context.js';
import { queryCte } from './keyword.js';
import type { TextQuery } from './text-query.js';
import { cardKey, type CardRef } from './types.js';

export const HEADLINE_INPUT_CHARS = 4000;
/** snippet: a line or two with the matched words in **bold**; passage: more context, unmarked, for packing into a prompt. */
const HEADLINE_OPTIONS = {
  snippet: 'MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … ", StartSel=**, StopSel=**',
  passage: 'MaxWords=70, MinWords=30, ShortWord=3, MaxFragments=3, FragmentDelimiter=" … ", StartSel="", StopSel=""',
} as const;

export interface CardDisplay {
  slug: string | null;
  kind: string;
  title: string;
  snippet: string;
  occurredAt: string | null;
}

export async function cardDisplays(db: Db, refs: readonly CardRef[], q: TextQuery, style: keyof typeof HEADLINE_OPTIONS = 'snippet'): Promise<Map<string, CardDisplay>> {
  const out = new Map<string, CardDisplay>();
  if (refs.length === 0) return out;
  const parts: RawBuilder<unknown>[] = [];
  const bySubject = new Map<string, { topics: number[]; episodes: number[] }>();
  for (const r of refs) {
    const entry = bySubject.get(r.subject) ?? { topics: [], episodes: [] };
    (r.entity === 'topic' ? entry.topics : entry.episodes).push(r.id);
    bySubject.set(r.subject, entry);
  }
  const headline = (text: RawBuilder<unknown>) => sql`ts_headline(q.cfg, left(${text}, ${sql.lit(HEADLINE_INPUT_CHARS)}), q.rank, ${HEADLINE_OPTIONS[style]})`;
  for (const [subject, ids] of bySubject) {
    if (ids.topics.length > 0) {
      parts.push(sql`SELECT ${subject}::text AS subject, 'topic'::text AS entity, t.id, t.slug, t.kind, t.title, NULL::text AS occurred_at,
                            ${headline(sql`concat_ws(E'\n', nullif(t.summary, ''), nullif(t.body, ''))`)} AS snippet
                       FROM ${sql.table(`${subject}.topics`)} t, q WHERE t.id = ANY(${ids.topics}::bigint[])`);
    }
    if (ids.episodes.length > 0) {
      parts.push(sql`SELECT ${subject}::text AS subject, 'episode'::text AS entity, e.id, NULL::text AS slug, e.kind, e.title,
                            to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS occurred_at,
                            ${headline(sql`concat_ws(E'\n', nullif(e.summary, ''), nullif(e.detail, ''))`)} AS snippet
                       FROM ${sql.table(`${subject}.episodes`)} e, q WHERE e.id = ANY(${ids.episodes}::bigint[])`);
    }
  }
  const rows = await sql<CardRef & CardDisplay & { occurred_at: string | null }>`WITH ${queryCte(q)} ${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  for (const r of rows.rows) {
    out.set(cardKey({ subject: r.subject, entity: r.entity, id: Number(r.id) }), {
      slug: r.slug,
      kind: r.kind,
      title: r.title,
      snippet: tidy(r.snippet ?? ''),
      occurredAt: r.occurred_at,
    });
  }
  return out;
}

/** A chunk as a snippet: without the "# title / ## heading" context lines the chunker adds. */
export function passageSnippet(passage: string, maxChars = 240): string {
  const text = tidy(passage.replace(/^(#{1,2} [^\n]*\n)+\n?/, ''));
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).trimEnd()} …`;
}

function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
