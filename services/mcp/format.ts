// Markdown renderings for the model: short, labelled with the subject, no JSON noise.
import { targetName, type Episode, type History, type Link, type TopicSummary, type TopicView, type UpcastResult } from '../knowledge/index.js';

export function topicMarkdown(t: TopicView): string {
  const lines = [`# ${t.title}`, `${t.subject}:${t.slug} · ${t.kind} · updated ${t.updatedAt.slice(0, 10)}`];
  if (t.summary) lines.push('', `> ${t.summary}`);
  if (t.body) lines.push('', t.body.trim());
  if (t.tags?.length) lines.push('', `Tags: ${t.tags.join(', ')}`);
  if (t.timelineEntries?.length) lines.push('', '## Timeline', ...t.timelineEntries.map((e) => episodeLine(e) + episodeDetail(e)));
  if (t.links?.length) lines.push('', '## Links', ...t.links.map((l) => `- ${l.relation} → ${l.toSubject}:${l.toSlug}${l.context ? ` — ${l.context}` : ''}`));
  if (t.backlinks?.length) lines.push('', '## Backlinks', ...t.backlinks.map((l) => `- ${l.fromSubject}:${l.fromSlug} (${l.relation})${l.context ? ` — ${l.context}` : ''}`));
  if (t.sources?.length) lines.push('', '## Sources', ...t.sources.map(sourceLine));
  if (t.raw?.length) lines.push('', '## Raw data', ...t.raw.map((r) => `- ${r.source} (${r.fetchedAt.slice(0, 10)}): ${JSON.stringify(r.data)}`));
  if (t.history) lines.push('', '## History', historyMarkdown(t.history, { diffLines: 6 }));
  return lines.join('\n');
}

export function episodeLine(e: Episode): string {
  return `- **${e.occurredAt.slice(0, e.dateOnly ? 10 : 16).replace('T', ' ')}** ${e.kind}: ${e.title}${e.summary ? ` — ${e.summary}` : ''}${e.sourceLabel ? ` (${e.sourceLabel})` : ''} [#${e.id}]`;
}

/** Shown of an episode's detail in a card's timeline; the rest is counted, not sent. */
export const DETAIL_SHOWN = 1000;

/** An episode's detail under its line, indented as GBrain writes it, cut at DETAIL_SHOWN characters. */
function episodeDetail(e: Episode): string {
  const d = e.detail.trim();
  if (!d) return '';
  const shown = d.length > DETAIL_SHOWN ? `${d.slice(0, DETAIL_SHOWN)}… (${(d.length - DETAIL_SHOWN).toLocaleString('en')} more characters)` : d;
  return `\n${shown.replace(/^/gm, '  ')}`;
}

/** `document 12 "Meeting 2026-11-28" (https://…) @ para 2 — "the words"`. */
export function sourceLine(s: { documentId: number | null; title?: string; uri: string | null; locator: string; quote: string }): string {
  const what = s.documentId !== null ? `document ${s.documentId}${s.title ? ` "${s.title}"` : ''}${s.uri ? ` (${s.uri})` : ''}` : (s.uri ?? '');
  return `- ${what}${s.locator ? ` @ ${s.locator}` : ''}${s.quote ? ` — "${s.quote}"` : ''}`;
}

const clip = (line: string, max = 160) => (line.length > max ? `${line.slice(0, max - 1)}…` : line);

/**
 * A card's (or an episode's) versions, newest first, each with what it changed: fields as
 * old → new, the body as a compact line diff (at most `diffLines` lines per version).
 */
export function historyMarkdown(h: History, opts: { diffLines?: number; restoreHint?: string } = {}): string {
  const max = opts.diffLines ?? 12;
  const name = targetName(h);
  const now = h.versions.find((v) => v.current);
  const lines = [
    h.deleted
      ? `History of ${name}: deleted ${h.deleted.at.slice(0, 16).replace('T', ' ')} by ${h.deleted.by}${h.deleted.reason ? ` — ${h.deleted.reason}` : ''}; v${h.total} is its last state.`
      : `History of ${name}: ${h.total} version${h.total === 1 ? '' : 's'}, v${h.total} is current${now?.archived ? (now.mergedInto ? ` (archived: merged into ${h.subject}:${now.mergedInto})` : ' (archived)') : ''}.`,
  ];
  const textName = h.entity === 'topic' ? 'body' : 'detail';
  for (const v of h.versions) {
    lines.push(
      `v${v.version}${v.current ? ' (current)' : ''} · ${v.at.slice(0, 16).replace('T', ' ')} · ${v.by ?? 'unknown'}${v.operation ? ` · ${v.operation}` : ''}${v.reason ? ` — ${clip(v.reason, 200)}` : ''}`,
    );
    if (v.origin === 'created') lines.push(`  created: "${clip(String(v.state.title ?? ''), 120)}"`);
    if (v.origin === 'recreated') lines.push('  recreated (restored after a delete)');
    for (const c of v.changes) lines.push(`  ${c.field}: ${c.from} → ${c.to}`);
    if (v.text) {
      lines.push(`  ${textName}: +${v.text.added} −${v.text.removed} lines`);
      lines.push(...v.text.lines.slice(0, max).map((l) => `    ${clip(l)}`));
      if (v.text.lines.length > max) lines.push(`    … ${v.text.lines.length - max} more`);
    }
    if (v.origin === 'changed' && v.changes.length === 0 && !v.text) lines.push('  (no visible change)');
  }
  const shown = h.versions.length;
  if (shown < h.total) lines.push(`(${h.total - shown} older version${h.total - shown === 1 ? '' : 's'} not shown)`);
  if (opts.restoreHint && h.total > 1) lines.push(opts.restoreHint);
  return lines.join('\n');
}

export function topicListMarkdown(rows: TopicSummary[]): string {
  if (rows.length === 0) return 'No cards match.';
  return rows.map((r) => `- ${r.subject}:${r.slug} · ${r.kind} · ${r.title}${r.summary ? ` — ${r.summary}` : ''}`).join('\n');
}

export function linkLine(l: Link): string {
  return `${l.fromSubject}:${l.fromSlug} —${l.relation}→ ${l.toSubject}:${l.toSlug}`;
}

export function upcastMarkdown(r: UpcastResult): string {
  return `Upcast ${r.action} personal:${r.personal.slug} from ${r.linkedFrom} (linked upcast-of).`;
}
