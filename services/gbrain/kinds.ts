// Which kind a GBrain page is, from its first directory (GBrain's own import map).

export type KindMap = Readonly<Record<string, string>>;

export const DEFAULT_KIND_MAP: KindMap = Object.freeze({
  people: 'person',
  companies: 'company',
  deals: 'deal',
  yc: 'yc',
  civic: 'civic',
  projects: 'project',
  concepts: 'concept',
  sources: 'source',
  media: 'media',
  meetings: 'source',
  programs: 'source',
});

export class UnknownDirectoryError extends Error {
  override readonly name = 'UnknownDirectoryError';
  constructor(
    readonly directory: string,
    readonly known: readonly string[],
  ) {
    super(`${directory}/: unknown directory; the known directories are ${known.join(', ')} (pass a kind map that maps "${directory}" to import it)`);
  }
}

/**
 * The kind of the page at `relPath` ("people/x.md" → "person"). Pages at the root take
 * `rootKind`. Throws UnknownDirectoryError, listing the known directories, otherwise.
 */
export function kindForPath(relPath: string, kindMap: KindMap = DEFAULT_KIND_MAP, rootKind = 'concept'): string {
  const parts = relPath.replace(/\\/g, '/').split('/');
  if (parts.length === 1) return rootKind;
  const dir = parts[0]!;
  const kind = Object.hasOwn(kindMap, dir) ? kindMap[dir] : undefined;
  if (kind === undefined) throw new UnknownDirectoryError(dir, Object.keys(kindMap).sort());
  return kind;
}
