// Tags: one spelling per tag. Every path that writes a tag (remember, create, propose/commit,
// the tag tool and CLI, brain put, GBrain import) goes through insertTags, so a tag is
// normalised in one place: lowercase, spaces and underscores become "-", characters other
// than letters, digits and - . / + # are dropped. "YC Alum", "yc_alum" and "yc-alum" are one
// tag, and a model that writes "Bad Tag!!" is told it was stored as "bad-tag".
// Three statements copy tags that are already stored and so take no new spelling: a merge
// moves a card's tags to its survivor (archive.ts), a restore puts a deleted card's tags back
// exactly as they were (history.ts), and lint's mergeTags renames old variants to this
// normal form (lint.ts).
import { z } from 'zod';
import { requireUpcastReason, targetSubject, write, type BrainContext, type Trx } from './context.js';
import { BrainError, fromDatabaseError } from './errors.js';
import { parseInput, reason, slug, subjectRef, tag } from './schemas.js';
import { requireTopic } from './topics.js';

/** The longest tag, after normalising. */
export const MAX_TAG_LENGTH = 100;

/** A tag that was stored under another spelling than the one given. */
export interface TagRename {
  from: string;
  to: string;
}

/**
 * The stored spelling of a tag, or undefined when nothing is left of it (no letter or digit).
 * Idempotent: a normalised tag normalises to itself. Letters of any script are kept (東京, zoë).
 */
export function normaliseTag(raw: string): string | undefined {
  const t = raw
    .toLowerCase()
    .normalize('NFC')
    .trim()
    .replace(/[\s_]+/gu, '-')
    .replace(/[^\p{L}\p{M}\p{N}\-./+#]/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^[-./]+|[-./]+$/g, '');
  return /[\p{L}\p{N}]/u.test(t) ? t : undefined;
}

/**
 * Normalises a list of tags (duplicates after normalising are one), or throws invalid_input
 * naming the first tag nothing is left of. `field` is the list's name as the caller spells it.
 */
export function normaliseTags(raw: readonly string[], field = 'tags'): { tags: string[]; renamed: TagRename[] } {
  const tags: string[] = [];
  const renamed: TagRename[] = [];
  raw.forEach((given, i) => {
    const to = normaliseTag(given);
    if (to === undefined) {
      throw new BrainError('invalid_input', `${field}[${i}]: the tag ${JSON.stringify(given)} has no letters or digits`, 'A tag is letters and digits, with - . / + # between words (e.g. "backup", "yc-alum"); leave this one out or spell it so.', {
        details: { field: `${field}[${i}]` },
      });
    }
    if (to.length > MAX_TAG_LENGTH) {
      throw new BrainError('invalid_input', `${field}[${i}]: the tag is ${to.length} characters long; at most ${MAX_TAG_LENGTH}`, 'Use a shorter tag.', { details: { field: `${field}[${i}]` } });
    }
    if (to !== given && !renamed.some((r) => r.from === given)) renamed.push({ from: given, to });
    if (!tags.includes(to)) tags.push(to);
  });
  return { tags, renamed };
}

/** `Tagged "bad-tag" (from "Bad Tag!!")`, one per renamed tag: shown in the tool's answer. */
export function renamedLines(renamed: readonly TagRename[]): string[] {
  return renamed.map((r) => `Tagged ${JSON.stringify(r.to)} (from ${JSON.stringify(r.from)})`);
}

/** Rows per statement (an import writes tens of thousands): far below Postgres's parameter limit. */
const CHUNK = 500;

/**
 * THE way a tag is written: normalises each row's tag and inserts the rows, a tag a card
 * already has being left as it is. Takes rows of several cards at once (the GBrain import
 * writes a batch of pages in one statement per 500 rows). Returns how many rows were new,
 * and the tags stored under another spelling. Throws invalid_input (see normaliseTags) before
 * writing anything.
 */
export async function insertTags(trx: Trx, subject: string, rows: readonly { topicId: number; tag: string }[]): Promise<{ added: number; renamed: TagRename[] }> {
  const { renamed } = normaliseTags(rows.map((r) => r.tag));
  const seen = new Set<string>();
  const values: { topic_id: number; tag: string }[] = [];
  for (const r of rows) {
    const t = normaliseTag(r.tag)!;
    const key = `${r.topicId}\u0000${t}`;
    if (seen.has(key)) continue;
    seen.add(key);
    values.push({ topic_id: r.topicId, tag: t });
  }
  let added = 0;
  for (let i = 0; i < values.length; i += CHUNK) {
    const inserted = await trx.withSchema(subject).insertInto('topic_tags').values(values.slice(i, i + CHUNK)).onConflict((oc) => oc.doNothing()).returning('tag').execute();
    added += inserted.length;
  }
  return { added, renamed };
}

/** insertTags for one card. */
export function addTags(trx: Trx, subject: string, topicId: number, tags: readonly string[]): Promise<{ added: number; renamed: TagRename[] }> {
  return insertTags(trx, subject, tags.map((t) => ({ topicId, tag: t })));
}

export const tagInput = z.object({ subject: subjectRef, slug, tags: z.array(tag).min(1).max(50), remove: z.boolean().default(false), reason });

export interface TagResult {
  /** The card's tags afterwards. */
  tags: string[];
  /** Tags stored (or, with remove, looked for) under another spelling than the one given. */
  renamed: TagRename[];
}

/** Adds (or with remove, takes away) tags; returns the card's tags afterwards. */
export async function tagTopic(ctx: BrainContext, raw: z.input<typeof tagInput>): Promise<TagResult> {
  const input = parseInput(tagInput, raw, 'tag');
  const subject = targetSubject(ctx, input.subject);
  requireUpcastReason(ctx, subject, input.reason);
  const { tags, renamed } = normaliseTags(input.tags);
  try {
    return await write(ctx, { operation: input.remove ? 'untag' : 'tag', reason: input.reason }, async (trx) => {
      const topic = await requireTopic(trx, subject, input.slug);
      if (input.remove) {
        // The given spelling too: a tag written before tags were normalised is still removable.
        const names = [...new Set([...tags, ...input.tags])];
        await trx.withSchema(subject).deleteFrom('topic_tags').where('topic_id', '=', topic.id).where('tag', 'in', names).execute();
      } else {
        await addTags(trx, subject, topic.id, tags);
      }
      const rows = await trx.withSchema(subject).selectFrom('topic_tags').select('tag').where('topic_id', '=', topic.id).orderBy('tag').execute();
      return { tags: rows.map((r) => r.tag), renamed };
    });
  } catch (error) {
    if (error instanceof BrainError) throw error;
    return fromDatabaseError(error, `tag "${input.slug}"`);
  }
}

export async function tagsOf(ctx: BrainContext, raw: { subject?: string; slug: string }): Promise<string[]> {
  const input = parseInput(z.object({ subject: subjectRef, slug }), raw, 'tags');
  const subject = targetSubject(ctx, input.subject);
  const topic = await requireTopic(ctx.db, subject, input.slug);
  const rows = await ctx.db.withSchema(subject).selectFrom('topic_tags').select('tag').where('topic_id', '=', topic.id).orderBy('tag').execute();
  return rows.map((r) => r.tag);
}

/** Every tag of a subject with how many cards carry it. */
export async function allTags(ctx: BrainContext, raw: { subject?: string } = {}): Promise<{ tag: string; count: number }[]> {
  const subject = targetSubject(ctx, parseInput(z.object({ subject: subjectRef }), raw, 'tags').subject);
  const rows = await ctx.db
    .withSchema(subject)
    .selectFrom('topic_tags')
    .select((eb) => ['tag', eb.fn.countAll<number>().as('count')])
    // Tags of live cards: an archived card is not listed, so its tags are not counted.
    .where('topic_id', 'in', (eb) => eb.selectFrom('topics').select('id').where('archived_at', 'is', null))
    .groupBy('tag')
    .orderBy('tag')
    .execute();
  return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
}
