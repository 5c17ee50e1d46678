// The overview's activity chart, drawn as SVG on the server (no chart library, no script):
// writes per week, one line per subject, with a legend and the week axis.
import { html, type Html } from './html.js';

export interface WeekSeries {
  subject: string;
  /** Writes per week, aligned with `weeks`. */
  counts: number[];
}

const COLOURS = ['#2f6fb3', '#c0562b', '#2e8b57', '#8a4fb3', '#b38f2f', '#3b9aa6', '#a63b6e', '#5d6b2f'];

export function activityChart(weeks: readonly Date[], series: readonly WeekSeries[]): Html {
  const width = 760;
  const height = 220;
  const left = 40;
  const right = 150;
  const top = 10;
  const bottom = 30;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...series.flatMap((s) => s.counts));
  const x = (i: number) => left + (weeks.length <= 1 ? plotW / 2 : (i * plotW) / (weeks.length - 1));
  const y = (n: number) => top + plotH - (n / max) * plotH;
  const ticks = [0, Math.round(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  const every = Math.max(1, Math.ceil(weeks.length / 6));
  const total = series.reduce((n, s) => n + s.counts.reduce((a, b) => a + b, 0), 0);
  return html`<svg class="activity" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
<title>Writes per week by subject: ${total} writes over ${weeks.length} weeks</title>
${ticks.map((t) => html`<line x1="${left}" x2="${left + plotW}" y1="${y(t)}" y2="${y(t)}" stroke="#e3e7eb"/><text x="${left - 6}" y="${y(t) + 4}" text-anchor="end" fill="#5b6672">${t}</text>`)}
${weeks.map((w, i) => (i % every === 0 || i === weeks.length - 1 ? html`<text x="${x(i)}" y="${height - 10}" text-anchor="middle" fill="#5b6672">${w.toISOString().slice(5, 10)}</text>` : ''))}
${series.map((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const points = s.counts.map((n, i) => `${x(i).toFixed(1)},${y(n).toFixed(1)}`).join(' ');
    return html`<polyline class="series" data-subject="${s.subject}" fill="none" stroke="${colour}" stroke-width="2" points="${points}"/>
${s.counts.map((n, i) => (n > 0 ? html`<circle cx="${x(i).toFixed(1)}" cy="${y(n).toFixed(1)}" r="2.5" fill="${colour}"><title>${s.subject}, week of ${weeks[i]!.toISOString().slice(0, 10)}: ${n}</title></circle>` : ''))}
<rect x="${width - right + 15}" y="${top + k * 18}" width="12" height="12" fill="${colour}"/><text x="${width - right + 32}" y="${top + k * 18 + 10}">${s.subject}</text>`;
  })}
</svg>`;
}
