// What a card renders to as a GBrain page, and the fingerprint that tells export whether
// an imported card is still exactly what was imported. The same functions run at import
// (over what is written) and at export (over what is in the database), so an untouched
// card always matches and its original bytes are written back.
import { createHash } from 'node:crypto';
import { normaliseTag } from '../knowledge/tags.js';
import { mergeTimeline, type EpisodeLike } from './episode-mapping.js';
import { pageTags } from './page.js';

/** What the last import of a page wrote, kept in gbrain_pages.imported. */
export interface ImportedMeta {
  title: string;
  tags: string[];
  /** Episodes made from the page's timeline lines, with the identity of their line. */
  episodes: { id: number; line: string }[];
  /** Link targets (slugs) read from the page. */
  links: string[];
  /** raw_data sources read from the page's sidecar. */
  raw: string[];
}

export interface CardState {
  title: string;
  body: string;
  timeline: string;
  /** topics.frontmatter as stored (json text, key order as written). */
  frontmatterText: string;
  tags: readonly string[];
  episodes: readonly EpisodeLike[];
}

export interface PageContent {
  frontmatter: Record<string, unknown>;
  /** JSON text of `frontmatter` (the stored text itself when nothing was adjusted). */
  frontmatterText: string;
  compiledTruth: string;
  timeline: string;
}

/**
 * The page content of a card. Against the import (when given): tags changed in claude-brain
 * go into frontmatter `tags`, and a changed title into frontmatter `title` when the page
 * has one. Episodes missing from the timeline markdown are added to it as lines.
 */
export function pageContent(card: CardState, imported?: Pick<ImportedMeta, 'title' | 'tags'>): PageContent {
  let frontmatterText = card.frontmatterText;
  let frontmatter: Record<string, unknown> | undefined;
  const parsed = (): Record<string, unknown> => (frontmatter ??= JSON.parse(card.frontmatterText) as Record<string, unknown>);
  if (imported && !sameSet(imported.tags, card.tags)) {
    // Keep the page's order and its spelling for tags that stay (the card holds them
    // normalised: "YC Alum" on the page is yc-alum on the card); new ones go last.
    const kept = pageTags({ frontmatter: parsed() }).filter((t) => card.tags.includes(normaliseTag(t) ?? ''));
    const keptTags = new Set(kept.map((t) => normaliseTag(t)));
    parsed().tags = [...kept, ...[...card.tags].filter((t) => !keptTags.has(t)).sort()];
  }
  if (imported && imported.title !== card.title && 'title' in parsed()) parsed().title = card.title;
  if (frontmatter) frontmatterText = JSON.stringify(frontmatter);
  return {
    get frontmatter() {
      return parsed();
    },
    frontmatterText,
    compiledTruth: card.body,
    timeline: mergeTimeline(card.timeline, card.episodes),
  };
}

export function fingerprint(content: Pick<PageContent, 'frontmatterText' | 'compiledTruth' | 'timeline'>): string {
  return createHash('sha256').update(content.frontmatterText).update('\0').update(content.compiledTruth).update('\0').update(content.timeline).digest('hex');
}

/** Hash of a card's raw data (source and JSON text), for sidecars the same way. */
export function rawFingerprint(rows: readonly { source: string; dataText: string }[]): string {
  const sorted = [...rows].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted.map((r) => [r.source, r.dataText]))).digest('hex');
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}
