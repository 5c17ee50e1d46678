// Markdown renderings for the model: short, labelled with the subject, no JSON noise.
import type { Episode, Link, TopicSummary, TopicView, UpcastResult, Version } from '../knowledge/index.js';

export function topicMarkdown(t: TopicView): string {
  const lines = [`# ${t.title}`, `${t.subject}:${t.slug} · ${t.kind} · updated ${t.updatedAt.slice(0, 10)}`];
  if (t.summary) lines.push('', `> ${t.summary}`);
  if (t.body) lines.push('', t.body.trim());
  if (t.tags?.length) lines.push('', `Tags: ${t.tags.join(', ')}`);
  if (t.timelineEntries?.length) lines.push('', '## Timeline', ...t.timelineEntries.map(episodeLine));
  if (t.links?.length) lines.push('', '## Links', ...t.links.map((l) => `- ${l.relation} → ${l.toSubject}:${l.toSlug}${l.context ? ` — ${l.context}` : ''}`));
  if (t.backlinks?.length) lines.push('', '## Backlinks', ...t.backlinks.map((l) => `- ${l.fromSubject}:${l.fromSlug} (${l.relation})${l.context ? ` — ${l.context}` : ''}`));
  if (t.sources?.length) lines.push('', '## Sources', ...t.sources.map((s) => `- ${s.uri ?? `document ${s.documentId}`}${s.locator ? ` @ ${s.locator}` : ''}${s.quote ? ` — "${s.quote}"` : ''}`));
  if (t.raw?.length) lines.push('', '## Raw data', ...t.raw.map((r) => `- ${r.source} (${r.fetchedAt.slice(0, 10)}): ${JSON.stringify(r.data)}`));
  if (t.history?.length) lines.push('', '## History', ...t.history.map(versionLine));
  return lines.join('\n');
}

export function episodeLine(e: Episode): string {
  return `- **${e.occurredAt.slice(0, e.dateOnly ? 10 : 16).replace('T', ' ')}** ${e.kind}: ${e.title}${e.summary ? ` — ${e.summary}` : ''}${e.sourceLabel ? ` (${e.sourceLabel})` : ''} [#${e.id}]`;
}

export function versionLine(v: Version): string {
  const prev = v.previous as { title?: string };
  return `- v${v.id} ${v.operation} ${v.changedAt.slice(0, 16).replace('T', ' ')} by ${v.changedBy}${v.reason ? ` — ${v.reason}` : ''}${prev.title ? ` (was "${prev.title}")` : ''}`;
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
