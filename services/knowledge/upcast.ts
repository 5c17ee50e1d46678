// Upcast: promote something learnt in a project into `personal`, with a reason. It
// creates or updates the personal card, links the project card to it, and records the
// reason in personal's outbox, all in one transaction. The deny-list, inside Postgres,
// decides whether the text may cross, the slug included.
//
// The personal card's slug comes from its (generic) title and kind, never from the project
// card's slug: `characters/ilsabet-marrow-s1` upcast as "Keeping a character ledger" lands
// at `personal:methodology/keeping-a-character-ledger`, which every project then lists.
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import { write, type BrainContext } from './context.js';
import { asBrainError, BrainError } from './errors.js';
import { insertLink } from './links.js';
import { slugFor } from '../search/slugify.js';
import { parseInput, slug } from './schemas.js';
import { insertTopicIfAbsent, lockTopic, requireLockedTopic, requireTopic, toTopic, updateTopicIn, type Topic } from './topics.js';

export const upcastInput = z.object({
  slug,
  reason: z.string().trim().min(3, 'say why this is generic knowledge').max(2000),
  /** The personal card's slug; by default "<kind>/<words of the title>" (never the project card's slug). */
  personalSlug: slug.optional(),
  /** Text for the personal card, when the project card carries project specifics. */
  title: z.string().trim().min(1).max(300).optional(),
  summary: z.string().max(1000).optional(),
  body: z.string().max(200_000).optional(),
  /** When the personal card exists: replace its body or append to it. */
  bodyMode: z.enum(['replace', 'append']).default('append'),
});

export interface UpcastResult {
  action: 'created' | 'updated';
  personal: Topic;
  linkedFrom: string;
}

export async function upcast(ctx: BrainContext, raw: z.input<typeof upcastInput>): Promise<UpcastResult> {
  const input = parseInput(upcastInput, raw, 'upcast');
  if (ctx.subject.isPersonal) {
    throw new BrainError('invalid_input', 'upcast moves project knowledge into personal; this is already the personal brain', 'Create or update the card directly.');
  }
  const project = ctx.subject.name;
  try {
    return await write(ctx, { operation: 'upcast', reason: input.reason }, async (trx) => {
      const source = await requireTopic(trx, project, input.slug);
      const target = input.personalSlug ?? slugFor(source.kind, input.title ?? source.title);
      const body = input.body ?? source.body;
      // The personal card is created if absent; if it exists, or another upcast creates it
      // meanwhile, its row is locked before its body is read, so concurrent appends all land.
      let existing = await lockTopic(trx, PERSONAL, target);
      let personal = existing
        ? undefined
        : await insertTopicIfAbsent(trx, PERSONAL, {
            slug: target,
            kind: source.kind,
            title: input.title ?? source.title,
            summary: input.summary ?? source.summary,
            body,
            timeline: '',
            frontmatter: {},
            tags: [],
            reason: input.reason,
          });
      if (!personal) {
        existing ??= await requireLockedTopic(trx, PERSONAL, target);
        const already = input.bodyMode === 'append' && existing.body.includes(body.trim());
        personal = await updateTopicIn(trx, PERSONAL, {
          slug: target,
          ...(input.title ? { title: input.title } : {}),
          ...(input.summary !== undefined ? { summary: input.summary } : {}),
          body: already ? existing.body : body,
          bodyMode: already ? 'replace' : input.bodyMode,
        }, existing);
      }
      await insertLink(trx, project, source.id, { toSubject: PERSONAL, to: target, relation: 'upcast-of', context: input.reason });
      return { action: existing ? ('updated' as const) : ('created' as const), personal: toTopic(PERSONAL, personal), linkedFrom: `${project}:${input.slug}` };
    });
  } catch (error) {
    const e = asBrainError(error, `upcast "${input.slug}"`);
    if (e instanceof BrainError && e.code === 'denied_by_deny_list') {
      throw new BrainError(
        'denied_by_deny_list',
        `upcast refused: ${e.message}`,
        'Nothing was written. Keep the card in this project, or upcast a generic version without project specifics (pass title/summary/body).',
        { cause: e, details: e.details },
      );
    }
    throw e;
  }
}
