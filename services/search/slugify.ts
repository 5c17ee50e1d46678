// Slugs for cards created without one: "<kind>/<title words>", e.g. "decision/use-caddy-for-tls".
const MAX_TITLE_PART = 80;

export function slugFor(kind: string, title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents go, letters stay
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  let part = words.slice(0, MAX_TITLE_PART).replace(/-+$/, '');
  if (part === '') part = 'untitled';
  return `${kind}/${part}`;
}

/** `base`, or `base-2`, `base-3`, ... : the first for which `taken` says no. */
export async function firstFreeSlug(base: string, taken: (slug: string) => Promise<boolean>): Promise<string> {
  if (!(await taken(base))) return base;
  for (let i = 2; i < 1000; i++) {
    const candidate = `${base}-${i}`;
    if (!(await taken(candidate))) return candidate;
  }
  throw new Error(`no free slug near "${base}"`);
}
