// A card's links and backlinks as a small SVG graph: the card in the middle, backlinks on the
// left pointing at it, links on the right pointed at; each node links to its card page.
import type { Link } from '../knowledge/index.js';
import { cardPath, html, type Html } from './html.js';

const MAX_SIDE = 12;

function label(text: string, max = 28): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function linkGraph(subject: string, slug: string, links: readonly Link[], backlinks: readonly Link[]): Html {
  const out = links.slice(0, MAX_SIDE);
  const into = backlinks.slice(0, MAX_SIDE);
  const rows = Math.max(1, out.length, into.length);
  const height = 30 + rows * 34;
  const width = 760;
  const cx = width / 2;
  const cy = height / 2;
  const yAt = (i: number, n: number) => (height / (n + 1)) * (i + 1);
  const node = (x: number, y: number, s: string, target: string, relation: string, anchor: 'start' | 'end') =>
    html`<a href="${cardPath(s, target)}"><rect x="${anchor === 'end' ? x - 200 : x}" y="${y - 11}" width="200" height="22" rx="4" fill="#fff" stroke="#9fb3c8"/>
<text x="${anchor === 'end' ? x - 8 : x + 8}" y="${y + 4}" text-anchor="${anchor}">${label(s === subject ? target : `${s}:${target}`)}</text><title>${relation}: ${s}:${target}</title></a>`;
  return html`<svg class="links" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
<title>${slug}: ${links.length} link(s) out, ${backlinks.length} backlink(s)</title>
${into.map((l, i) => html`<line x1="210" y1="${yAt(i, into.length)}" x2="${cx - 110}" y2="${cy}" stroke="#9fb3c8"/><text x="${(210 + cx - 110) / 2}" y="${(yAt(i, into.length) + cy) / 2 - 4}" text-anchor="middle" fill="#5b6672">${l.relation}</text>`)}
${out.map((l, i) => html`<line x1="${cx + 110}" y1="${cy}" x2="${width - 210}" y2="${yAt(i, out.length)}" stroke="#9fb3c8"/><text x="${(cx + 110 + width - 210) / 2}" y="${(yAt(i, out.length) + cy) / 2 - 4}" text-anchor="middle" fill="#5b6672">${l.relation}</text>`)}
<rect x="${cx - 110}" y="${cy - 14}" width="220" height="28" rx="5" fill="#2f6fb3"/><text x="${cx}" y="${cy + 5}" text-anchor="middle" fill="#fff">${label(slug, 32)}</text>
${into.map((l, i) => node(210, yAt(i, into.length), l.fromSubject, l.fromSlug, l.relation, 'end'))}
${out.map((l, i) => node(width - 210, yAt(i, out.length), l.toSubject, l.toSlug, l.relation, 'start'))}
</svg>${links.length > MAX_SIDE || backlinks.length > MAX_SIDE ? html`<p class="muted">The graph shows ${MAX_SIDE} on each side; the lists below have them all.</p>` : ''}`;
}
