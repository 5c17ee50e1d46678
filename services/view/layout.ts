// The page shell every page shares: navigation, the stylesheet (served from /assets, since the
// CSP allows no inline style), and no script at all.
import { html, type Html } from './html.js';

export interface Shell {
  title: string;
  /** The navigation entry to mark as current. */
  section: 'overview' | 'subjects' | 'health' | 'upcasts' | 'outbox';
  subjects: readonly string[];
  /** The page reloads itself after this many seconds (a figure still being computed). */
  reloadSeconds?: number;
}

export function layout(shell: Shell, body: Html): string {
  const nav: [Shell['section'], string, string][] = [
    ['overview', '/', 'Overview'],
    ['subjects', `/s/${shell.subjects[0] ?? 'personal'}`, 'Subjects'],
    ['health', '/health', 'Health'],
    ['upcasts', '/upcasts', 'Upcasts'],
    ['outbox', '/outbox', 'Outbox'],
  ];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shell.title} · claude-brain</title>
${shell.reloadSeconds ? html`<meta http-equiv="refresh" content="${shell.reloadSeconds}">
` : ''}<link rel="stylesheet" href="/assets/view.css">
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
</head>
<body>
<header>
<span class="brand">claude-brain</span>
<nav>${nav.map(([key, href, label]) => html`<a href="${href}"${key === shell.section ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
<span class="ro" title="This view connects as the read-only audit role">read-only</span>
</header>
<main>
<h1>${shell.title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

export const STYLESHEET = `
:root { --fg: #1d232a; --muted: #5b6672; --line: #d8dee4; --bg: #fbfcfd; --accent: #2f6fb3; --warn: #a4461d; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.5rem; border-bottom: 1px solid var(--line); background: #fff; }
header nav a { margin-right: 1rem; color: var(--muted); text-decoration: none; }
header nav a[aria-current] { color: var(--fg); font-weight: 600; }
.brand { font-weight: 700; }
.ro { margin-left: auto; font-size: 12px; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 .4rem; }
main { padding: 1rem 1.5rem 3rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 13px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 1rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; }
.card h2 { margin-top: 0; }
.card dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .8rem; margin: 0; }
.card dt { color: var(--muted); }
.card dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.flag { color: var(--warn); font-weight: 600; }
.body { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1.2rem; }
.body pre, pre.diff { overflow-x: auto; background: #f3f5f7; padding: .5rem; border-radius: 4px; }
pre.diff { white-space: pre-wrap; }
.tag { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 .5rem; margin: 0 .2rem .2rem 0; font-size: 13px; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .5rem 0 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: 13px; color: var(--muted); }
form.filters input, form.filters select { font: inherit; padding: .2rem .4rem; }
svg text { font: 11px system-ui, sans-serif; }
.pager { margin: 1rem 0; }
.split { display: grid; grid-template-columns: 2fr 1fr; gap: 1.5rem; }
@media (max-width: 900px) { .split { grid-template-columns: 1fr; } }
`;

export const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2f6fb3"/><circle cx="8" cy="8" r="3" fill="#fff"/></svg>';
