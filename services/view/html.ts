// The view's one way to build HTML: a tagged template that escapes every interpolated value,
// unless it is already Html (made by this template, or by raw() for markup we produced, such
// as the markdown renderer's output). So a card's title, body or reason can never become
// markup by forgetting to escape it.
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup we produced ourselves (already escaped where it holds data). */
export function raw(text: string): Html {
  return new Html(text);
}

/** A query string from the non-empty values, for links that keep the current filters. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Path segments are encoded one by one (a slug holds "/": `tool/psycopg3`). */
export function cardPath(subject: string, slug: string): string {
  return `/s/${encodeURIComponent(subject)}/card/${slug.split('/').map(encodeURIComponent).join('/')}`;
}

export function when(value: string | Date | null | undefined): string {
  if (!value) return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
