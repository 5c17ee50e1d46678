// What one GBrain page becomes in claude-brain, decided before anything is written: the
// card, its tags, the episodes of its timeline lines, its links, its sidecar's raw data,
// and the fingerprint export compares against. Pure: no database.
import { MAX_JSON_CHARS, slug as slugSchema, textProblem } from '../knowledge/schemas.js';
import { normaliseTag } from '../knowledge/tags.js';
import type { BrainPage } from './directory.js';
import { entryIdentity, episodeKindFor, episodeTitle, isCalendarDate } from './episode-mapping.js';
import { extractLinks } from './links.js';
import { fingerprint, rawFingerprint, sha256 } from './page-content.js';
import { pageTags, pageTitle, renderPage } from './page.js';
import { sidecarRecords, type Sidecar } from './sidecar.js';
import { parseTimeline } from './timeline.js';

export interface PlannedEpisode {
  /** The identity of its timeline line (date, source, summary, detail). */
  line: string;
  kind: string;
  date: string;
  title: string;
  summary: string;
  detail: string;
  source: string;
}

export interface PagePlan {
  relPath: string;
  slug: string;
  kind: string;
  title: string;
  summary: string;
  body: string;
  timeline: string;
  frontmatterText: string;
  tags: string[];
  episodes: PlannedEpisode[];
  /** Link target slug → the sentence of its first mention. */
  links: Map<string, string>;
  /** Links as written, repeats included. */
  linksParsed: number;
  original: Buffer;
  sha256: string;
  fingerprint: string;
  sidecar?: { relPath: string; bytes: Buffer; sha256: string; raw: { source: string; dataText: string }[]; fingerprint: string };
  /** Things kept out of the card (a bad date, an overlong tag), each naming the file. */
  warnings: string[];
}

/** The slug of a page path: without ".md", whitespace runs as "-" (a slug has no spaces). */
export function slugForPage(relPath: string): string {
  return relPath.replace(/\\/g, '/').replace(/\.md$/i, '').replace(/\s+/g, '-');
}

export class PagePlanError extends Error {
  override readonly name = 'PagePlanError';
}

/**
 * What a card written by remember (and an episode written by record) may hold; an imported
 * page is held to the same, so import never stores what the tools would refuse. A page over
 * a limit is refused as a whole (cutting it would lose text), named with the reason.
 */
export const CARD_LIMITS = { title: 300, body: 200_000, timeline: 200_000, tags: 50, tagLength: 100, episodeSummary: 2000, episodeDetail: 100_000 } as const;

function checkLimits(relPath: string, fields: { title: string; body: string; timeline: string; frontmatterText: string }): void {
  const refuse = (why: string): never => {
    throw new PagePlanError(`${relPath}: ${why}; not imported`);
  };
  const n = (x: number) => x.toLocaleString('en');
  if (fields.title.length > CARD_LIMITS.title) refuse(`its title has ${n(fields.title.length)} characters, more than the ${n(CARD_LIMITS.title)} a card's title may have`);
  if (fields.body.length > CARD_LIMITS.body) refuse(`its text has ${n(fields.body.length)} characters, more than the ${n(CARD_LIMITS.body)} a card's body may have (split the page)`);
  if (fields.timeline.length > CARD_LIMITS.timeline) refuse(`its timeline has ${n(fields.timeline.length)} characters, more than the ${n(CARD_LIMITS.timeline)} a card's timeline may have`);
  if (fields.frontmatterText.length > MAX_JSON_CHARS) refuse(`its frontmatter has ${n(fields.frontmatterText.length)} characters as JSON, more than ${n(MAX_JSON_CHARS)}`);
  for (const [what, text] of [['title', fields.title], ['text', fields.body], ['timeline', fields.timeline]] as const) {
    const problem = textProblem(text);
    if (problem) refuse(`its ${what} ${problem}`);
  }
}

export function planPage(page: BrainPage, sidecar: Sidecar | undefined): PagePlan {
  const slug = slugForPage(page.relPath);
  const valid = slugSchema.safeParse(slug);
  if (!valid.success) throw new PagePlanError(`${page.relPath}: the slug "${slug}" is not usable (${valid.error.issues[0]!.message})`);
  const warnings: string[] = [];
  let frontmatterText: string;
  try {
    frontmatterText = JSON.stringify(page.frontmatter);
  } catch (cause) {
    throw new PagePlanError(`${page.relPath}: the frontmatter cannot be stored as JSON (${(cause as Error).message})`);
  }

  const title = pageTitle(page);
  checkLimits(page.relPath, { title, body: page.compiledTruth, timeline: page.timeline, frontmatterText });

  // Tags are stored as every other path stores them (normalised, knowledge/tags.ts); the page's
  // own spelling stays in its frontmatter, which is what export writes back.
  const tags: string[] = [];
  for (const given of pageTags(page)) {
    const t = textProblem(given) ? undefined : normaliseTag(given);
    if (textProblem(given)) warnings.push(`${page.relPath}: a tag ${textProblem(given)}; not stored as a tag (it stays in the frontmatter)`);
    else if (t === undefined) warnings.push(`${page.relPath}: the tag ${JSON.stringify(given.slice(0, 40))} has no letters or digits; not stored as a tag (it stays in the frontmatter)`);
    else if (t.length > CARD_LIMITS.tagLength) warnings.push(`${page.relPath}: the tag "${given.slice(0, 40)}…" is longer than ${CARD_LIMITS.tagLength} characters; not stored as a tag (it stays in the frontmatter)`);
    else if (tags.includes(t)) continue;
    else if (tags.length >= CARD_LIMITS.tags) warnings.push(`${page.relPath}: the tag "${given}" is one more than the ${CARD_LIMITS.tags} a card may have; not stored as a tag (it stays in the frontmatter)`);
    else tags.push(t);
  }

  const episodes: PlannedEpisode[] = [];
  for (const e of parseTimeline(page.timeline)) {
    if (!isCalendarDate(e.date)) {
      warnings.push(`${page.relPath}: timeline line ${e.line} has the date ${e.date}, which is not a calendar date; it stays in the timeline text but gets no episode`);
      continue;
    }
    if (e.summary.length > CARD_LIMITS.episodeSummary || e.detail.length > CARD_LIMITS.episodeDetail) {
      const n = (x: number) => x.toLocaleString('en');
      warnings.push(`${page.relPath}: timeline line ${e.line} is longer than an episode may be (summary ${n(CARD_LIMITS.episodeSummary)}, detail ${n(CARD_LIMITS.episodeDetail)} characters); it stays in the timeline text but gets no episode`);
      continue;
    }
    episodes.push({ line: entryIdentity(e), kind: episodeKindFor(e.source), date: e.date, title: episodeTitle(e), summary: e.summary, detail: e.detail, source: e.source });
  }

  // Compiled truth and timeline separately: an unclosed fence above the line must not hide the timeline's links.
  const found = [...extractLinks(page.compiledTruth, page.slug), ...extractLinks(page.timeline, page.slug)];
  const links = new Map<string, string>();
  for (const l of found) {
    const to = slugForPage(l.toSlug);
    if (!links.has(to)) links.set(to, l.context);
  }

  const original = renderPage(page);
  const plan: PagePlan = {
    relPath: page.relPath,
    slug,
    kind: page.kind,
    title,
    summary: executiveSummary(page.compiledTruth),
    body: page.compiledTruth,
    timeline: page.timeline,
    frontmatterText,
    tags,
    episodes,
    links,
    linksParsed: found.length,
    original,
    sha256: sha256(original),
    fingerprint: fingerprint({ frontmatterText, compiledTruth: page.compiledTruth, timeline: page.timeline }),
    warnings,
  };
  if (sidecar) {
    const raw = sidecarRecords(sidecar).map((r) => ({ source: r.source, dataText: JSON.stringify(r.data) }));
    plan.sidecar = { relPath: sidecar.relPath, bytes: sidecar.bytes, sha256: sha256(sidecar.bytes), raw, fingerprint: rawFingerprint(raw) };
  }
  return plan;
}

/** GBrain pages open with an executive summary in a blockquote; it becomes the card's summary. */
export function executiveSummary(compiledTruth: string): string {
  const m = /^>[ \t]?(.*(?:\n>[ \t]?.*)*)/m.exec(compiledTruth);
  if (!m) return '';
  const text = m[1]!.replace(/\n>[ \t]?/g, ' ').trim();
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}
