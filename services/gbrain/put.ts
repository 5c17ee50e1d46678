// `brain put`: a whole page in GBrain markdown becomes (or replaces) one card, in one
// transaction: frontmatter, compiled truth as body, timeline markdown kept as written,
// frontmatter tags added, timeline lines not yet on the card's timeline as episodes,
// wiki links as links. Nothing is removed: tags, episodes and links added some other
// way stay.
import { z } from 'zod';
import { DEFAULT_KIND_MAP } from './kinds.js';
import { entryKey, episodeKindFor, episodeTitle, isCalendarDate } from './episode-mapping.js';
import { extractLinks } from './links.js';
import { pageTags, pageTitle, parsePage } from './page.js';
import { slugForPage } from './page-plan.js';
import { parseTimeline } from './timeline.js';
import { write, type BrainContext } from '../knowledge/context.js';
import { BrainError, fromDatabaseError } from '../knowledge/errors.js';
import { insertEpisode, recordEpisodeInput, timelineOf } from '../knowledge/episodes.js';
import { assertKind } from '../knowledge/kinds.js';
import { insertLink } from '../knowledge/links.js';
import { createTopicInput, insertTopicIfAbsent, lockTopic, toTopic, updateTopicIn, updateTopicInput, type Topic } from '../knowledge/topics.js';
import { parseInput, reason as reasonSchema, slug as slugSchema } from '../knowledge/schemas.js';
import { addTags, normaliseTag } from '../knowledge/tags.js';

export const putPageInput = z.object({
  slug: slugSchema,
  markdown: z.string().max(2_000_000),
  kind: z.string().trim().min(1).optional(),
  title: z.string().trim().min(1).max(300).optional(),
  reason: reasonSchema,
});

export interface PutResult {
  action: 'created' | 'updated';
  topic: Topic;
  episodesAdded: number;
  links: number;
  warnings: string[];
}

export async function putPage(ctx: BrainContext, raw: z.input<typeof putPageInput>): Promise<PutResult> {
  const input = parseInput(putPageInput, raw, 'put');
  const subject = ctx.subject.name;
  const page = parsePage(input.markdown, `${input.slug}.md`);
  const warnings = [...page.warnings];
  const hasFrontmatter = page.raw.frontmatter !== null;
  // As the import plans them: a tag nothing is left of after normalising stays in the frontmatter only.
  const tags = pageTags(page).filter((t) => t.length <= 100 && normaliseTag(t) !== undefined);
  const titleFromText = hasFrontmatter && typeof page.frontmatter.title === 'string' ? page.frontmatter.title : /^# +/m.test(page.compiledTruth) ? pageTitle(page) : undefined;
  try {
    return await write(ctx, { operation: 'put', reason: input.reason }, async (trx) => {
      warnings.length = page.warnings.length; // write() may run this again after a lost connection
      // Locked before it is read, and created only if absent: a concurrent put of the same
      // new slug turns this one into an update of the card it created.
      let existing = await lockTopic(trx, subject, input.slug);
      let row;
      if (!existing) {
        const kind = input.kind ?? kindFor(ctx, input.slug, page.frontmatter.type);
        assertKind(ctx, kind, 'topic');
        const create = parseInput(
          createTopicInput,
          { slug: input.slug, kind, title: input.title ?? pageTitle(page), body: page.compiledTruth, timeline: page.timeline, frontmatter: page.frontmatter, tags },
          'put',
        );
        row = await insertTopicIfAbsent(trx, subject, create);
        if (!row) existing = await lockTopic(trx, subject, input.slug);
      }
      if (existing) {
        if (input.kind) assertKind(ctx, input.kind, 'topic');
        const update = parseInput(
          updateTopicInput,
          {
            slug: input.slug,
            body: page.compiledTruth,
            timeline: page.timeline,
            ...(hasFrontmatter ? { frontmatter: page.frontmatter } : {}),
            ...(input.title ?? titleFromText ? { title: input.title ?? titleFromText } : {}),
            ...(input.kind ? { kind: input.kind } : {}),
          },
          'put',
        );
        row = await updateTopicIn(trx, subject, update, existing);
      }
      if (!row) throw new BrainError('conflict', `put "${input.slug}": the card was removed while it was being written`, 'Try again.');
      if (existing) await addTags(trx, subject, row.id, tags);
      // Timeline lines the card has no episode for yet (matched by date and summary).
      const have = new Map<string, number>();
      for (const e of await timelineOf(trx, subject, row.id, 500)) have.set(entryKey(e.occurredAt.slice(0, 10), e.summary), (have.get(entryKey(e.occurredAt.slice(0, 10), e.summary)) ?? 0) + 1);
      let episodesAdded = 0;
      for (const entry of parseTimeline(page.timeline)) {
        const key = entryKey(entry.date, entry.summary);
        if ((have.get(key) ?? 0) > 0) {
          have.set(key, have.get(key)! - 1);
          continue;
        }
        if (!isCalendarDate(entry.date)) {
          warnings.push(`timeline line ${entry.line}: ${entry.date} is not a calendar date; no episode for it`);
          continue;
        }
        const episode = parseInput(
          recordEpisodeInput,
          { kind: episodeKindFor(entry.source), occurredAt: entry.date, title: episodeTitle(entry), summary: entry.summary, detail: entry.detail, sourceLabel: entry.source, topics: [input.slug] },
          'put: timeline line',
        );
        await insertEpisode(trx, subject, episode);
        episodesAdded++;
      }
      const links = new Map<string, string>();
      for (const l of [...extractLinks(page.compiledTruth, input.slug), ...extractLinks(page.timeline, input.slug)]) {
        const to = slugForPage(l.toSlug);
        if (!links.has(to)) links.set(to, l.context);
      }
      for (const [to, context] of links) await insertLink(trx, subject, row.id, { toSubject: subject, to, relation: 'mentions', context });
      return { action: existing ? ('updated' as const) : ('created' as const), topic: toTopic(subject, row), episodesAdded, links: links.size, warnings };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `put "${input.slug}"`);
  }
}

/** A new card's kind: frontmatter `type` when it is a topic kind, else the slug's GBrain directory. */
function kindFor(ctx: BrainContext, slug: string, type: unknown): string {
  if (typeof type === 'string' && ctx.kinds.some((k) => k.name === type && k.class === 'topic')) return type;
  const dir = slug.split('/')[0]!;
  const mapped = slug.includes('/') ? DEFAULT_KIND_MAP[dir] : undefined;
  if (mapped) return mapped;
  const valid = ctx.kinds.filter((k) => k.class === 'topic').map((k) => k.name);
  throw new BrainError('invalid_input', `put "${slug}": no kind given, and neither the frontmatter type nor the slug's directory names one`, `Pass --kind, one of: ${valid.join(', ')}.`, {
    details: { validKinds: valid },
  });
}
