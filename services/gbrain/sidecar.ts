// `.raw/<name>.json` sidecars: enrichment data for the page <dir>/<name>, shaped
// { "sources": { "crustdata": {...}, "happenstance": {...} } }, one raw-data record per
// source. The bytes are kept so an unchanged sidecar is written back byte for byte.
import { isDeepStrictEqual } from 'node:util';

export interface Sidecar {
  /** POSIX path inside the brain, e.g. "people/.raw/pedro-franceschi.json". */
  readonly relPath: string;
  /** The page it belongs to, e.g. "people/pedro-franceschi". */
  readonly slug: string;
  /** The file as read. */
  readonly bytes: Buffer;
  /** source name → that source's data; {} when the file has none or is not valid JSON. */
  sources: Record<string, unknown>;
}

export interface RawRecord {
  source: string;
  data: unknown;
}

/** "people/.raw/x.json" → "people/x"; null when the path is not a sidecar path. */
export function sidecarSlug(relPath: string): string | null {
  const m = /^(?:(.*)\/)?\.raw\/([^/]+)\.json$/.exec(relPath.replace(/\\/g, '/'));
  if (!m) return null;
  return m[1] ? `${m[1]}/${m[2]}` : m[2]!;
}

/** Parses a sidecar; the problems name the file. Never throws: bad JSON is kept as bytes. */
export function parseSidecar(bytes: Buffer, relPath: string): { sidecar: Sidecar; problems: string[] } {
  const slug = sidecarSlug(relPath);
  if (slug === null) throw new Error(`${relPath}: not a sidecar path (expected <dir>/.raw/<name>.json)`);
  const { sources, problem } = readSources(bytes, relPath);
  return { sidecar: { relPath: relPath.replace(/\\/g, '/'), slug, bytes, sources }, problems: problem ? [problem] : [] };
}

export function sidecarRecords(sidecar: Pick<Sidecar, 'sources'>): RawRecord[] {
  return Object.entries(sidecar.sources).map(([source, data]) => ({ source, data }));
}

/** The original bytes when `sources` is unchanged, else the JSON re-written (2-space indent). */
export function renderSidecar(sidecar: Sidecar): Buffer {
  const original = readSources(sidecar.bytes, sidecar.relPath);
  if (isDeepStrictEqual(original.sources, sidecar.sources)) return sidecar.bytes;
  // Keep any other top-level keys the file had next to "sources".
  const whole = original.json !== null && typeof original.json === 'object' && !Array.isArray(original.json) ? original.json : {};
  return Buffer.from(JSON.stringify({ ...whole, sources: sidecar.sources }, null, 2) + '\n', 'utf8');
}

function readSources(bytes: Buffer, relPath: string): { json: unknown; sources: Record<string, unknown>; problem?: string } {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (cause) {
    return { json: null, sources: {}, problem: `${relPath}: not valid JSON (${(cause as Error).message}); kept as bytes, no raw data read` };
  }
  const sources = json !== null && typeof json === 'object' ? (json as { sources?: unknown }).sources : undefined;
  if (sources === null || typeof sources !== 'object' || Array.isArray(sources)) {
    return { json, sources: {}, problem: `${relPath}: has no "sources" object; kept as bytes, no raw data read` };
  }
  return { json, sources: sources as Record<string, unknown> };
}
