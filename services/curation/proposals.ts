// Session-close capture, propose-then-confirm: propose plans a batch of writes (search
// before add, kind check, deny-list pre-check), stores it and writes no knowledge; only
// the human's answer (directly through elicitation, or relayed to commit) writes, per
// subject in one transaction, each item under its own savepoint.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import { PERSONAL } from '../../config/subjects.js';
import {
  addTags,
  assertKind,
  BrainError,
  findTopic,
  insertEpisode,
  insertLink,
  insertTopicIfAbsent,
  normaliseTags,
  parseInput,
  sqlStateOf,
  targetSubject,
  updateTopicIn,
  write,
  type BrainContext,
  type Trx,
} from '../knowledge/index.js';
import { firstFreeSlug, slugFor } from '../search/slugify.js';
import { exactMatchPlanner, type TopicPlanner } from './planner.js';
import { proposalItem, type PlannedItem, type ProposalItem } from './proposal-items.js';

export const proposeInput = z.object({ items: z.array(proposalItem).min(1).max(50) });

export interface ProposalOptions {
  planner?: TopicPlanner;
  /** How long a proposal waits for the human (default 24 hours). */
  ttlMinutes?: number;
}

export interface Proposal {
  id: string;
  items: PlannedItem[];
  expiresAt: string;
  preview: string;
}

/** Thrown inside a transaction to roll it back on purpose. */
class DryRun extends Error {}

/**
 * Writes one planned item inside an open transaction (used by the dry run and by commit).
 * Returns what happened to a topic: a planned create whose slug another writer has taken
 * since propose appends to that card instead, as a planned update would.
 */
async function writeItem(trx: Trx, ctx: BrainContext, p: PlannedItem, why: string): Promise<'created' | 'updated' | 'recorded'> {
  await sql`SELECT set_config('brain.reason', ${why}, true)`.execute(trx);
  const item = p.item;
  if (item.type === 'episode') {
    await insertEpisode(trx, p.subject, {
      subject: p.subject,
      kind: item.kind,
      occurredAt: item.date,
      title: item.title,
      summary: item.summary ?? '',
      detail: item.detail ?? '',
      sourceLabel: item.source ?? 'session',
      topics: item.topics,
      reason: why,
    });
    return 'recorded';
  }
  if (p.action !== '~') {
    const created = await insertTopicIfAbsent(trx, p.subject, {
      slug: p.slug!,
      kind: item.kind,
      title: item.title,
      summary: item.summary ?? '',
      body: item.body,
      timeline: '',
      frontmatter: {},
      tags: item.tags,
      reason: why,
    });
    if (created) {
      // A link whose card was archived or removed since propose is dropped, not refused: the card itself still stands.
      for (const l of p.links ?? []) {
        const target = await findTopic(trx, l.subject, l.slug);
        if (target && !target.archived_at) await insertLink(trx, p.subject, created.id, { toSubject: l.subject, to: l.slug, relation: 'mentions', context: l.context });
      }
      return 'created';
    }
    // A new card was asked for by name: never turn it into an update of someone else's card.
    if (item.forceNew) throw new BrainError('already_exists', `topic "${p.slug}" already exists in ${p.subject}`, 'Propose it without forceNew to update that card, or without its slug to get a fresh one.');
  }
  // As remember does: replace rewrites the card (title, kind, text); a summary given is the
  // card's summary in either mode. updateTopicIn locks the row before reading it, so a
  // concurrent append is never lost.
  const row = await updateTopicIn(trx, p.subject, {
    slug: p.slug!,
    ...(item.summary !== undefined ? { summary: item.summary } : {}),
    ...(item.mode === 'replace' ? { title: item.title, kind: item.kind } : {}),
    body: item.body,
    bodyMode: item.mode,
    reason: why,
  });
  await addTags(trx, p.subject, row.id, item.tags);
  return 'updated';
}

function reasonFor(item: ProposalItem): string {
  return `session-close${item.reason ? `: ${item.reason}` : ''}`;
}

async function plan(ctx: BrainContext, n: number, item: ProposalItem, planner: TopicPlanner, proposedSlugs: ReadonlySet<string>): Promise<PlannedItem> {
  let subject: string;
  try {
    subject = targetSubject(ctx, item.subject);
  } catch (error) {
    return { n, item, subject: item.subject ?? '?', action: '✗', problem: (error as Error).message };
  }
  const p: PlannedItem = { n, item, subject, action: '+' };
  if (subject === PERSONAL && !ctx.subject.isPersonal && !item.reason) return { ...p, action: '✗', problem: 'an upcast needs a reason' };
  try {
    assertKind(ctx, item.kind, item.type);
  } catch (error) {
    return { ...p, action: '✗', problem: `${(error as BrainError).message}; ${(error as BrainError).hint}` };
  }
  if (item.type === 'topic') {
    try {
      const { renamed } = normaliseTags(item.tags);
      if (renamed.length) p.renamedTags = renamed;
    } catch (error) {
      if (!(error instanceof BrainError)) throw error;
      return { ...p, action: '✗', problem: `${error.message}; ${error.hint}` };
    }
    const decision = await planner(ctx, subject, item);
    Object.assign(p, { action: decision.action === 'update' ? '~' : '+', slug: decision.slug, candidates: decision.candidates });
    if (decision.existingTitle) p.existingTitle = decision.existingTitle;
    if (decision.links?.length) p.links = decision.links;
    if (decision.possibleDuplicates?.length) p.possibleDuplicates = decision.possibleDuplicates;
    if (item.forceNew && decision.action === 'update') {
      // As remember: a new card despite a confident match, only with a reason saying why it is another thing.
      if (!item.reason) return { ...p, action: '✗', problem: `"${subject}:${decision.slug}" already looks like this card; creating another (forceNew) needs a reason` };
      const wanted = item.slug ?? slugFor(item.kind, item.title);
      const slugNow = item.slug ?? (await firstFreeSlug(wanted, async (s) => (await findTopic(ctx.db, subject, s)) !== undefined));
      Object.assign(p, { action: '+', slug: slugNow });
      delete p.existingTitle;
    }
  }
  // Dry run: the write happens and is rolled back, so the database (deny-list, kinds,
  // links, topics the episode names) says now whether commit would succeed.
  try {
    await write(ctx, { operation: 'propose-check', reason: reasonFor(item) }, async (trx) => {
      // An episode may concern a card this same batch creates; commit writes topics first.
      const probe = p.item.type === 'episode' ? { ...p, item: { ...p.item, topics: p.item.topics.filter((t) => !proposedSlugs.has(`${p.subject}:${t}`)) } } : p;
      await writeItem(trx, ctx, probe, reasonFor(item));
      throw new DryRun();
    });
  } catch (error) {
    if (error instanceof DryRun) return p;
    if (error instanceof BrainError) return { ...p, action: '✗', problem: error.message };
    if (sqlStateOf(error)) return { ...p, action: '✗', problem: (error as Error).message };
    throw error;
  }
  return p;
}

export function previewText(subject: string, items: readonly PlannedItem[], id?: string): string {
  const line = (p: PlannedItem) => {
    const title = p.item.type === 'topic' && p.action === '~' ? (p.existingTitle ?? p.item.title) : p.item.title;
    const extra =
      p.action === '~' && p.item.type === 'topic' ? `  (${p.item.mode}: ${p.item.body.replace(/\s+/g, ' ').slice(0, 60)}${p.item.body.length > 60 ? '…' : ''})` : '';
    const out = [`  [${p.n}] ${p.action} ${p.item.type.padEnd(8)} ${p.item.kind.padEnd(15)} "${title}"${extra}`];
    if (p.action === '~' && p.slug) out.push(`        updates ${p.subject}:${p.slug} (search before add: the same thing)`);
    for (const d of p.possibleDuplicates ?? []) out.push(`        may be the same as ${d.subject}:${d.slug} "${d.title}" (p ${d.score}); if it is, propose it again with slug "${d.slug}" to update that card`);
    if (p.action === '+' && p.links?.length) out.push(`        links to ${p.links.map((l) => `${l.subject}:${l.slug}`).join(', ')}`);
    if (p.item.reason && p.subject === PERSONAL && subject !== PERSONAL) out.push(`        reason: ${p.item.reason}`);
    for (const r of p.renamedTags ?? []) out.push(`        tag ${JSON.stringify(r.to)} (from ${JSON.stringify(r.from)})`);
    if (p.problem) out.push(`        cannot be written: ${p.problem}`);
    return out.join('\n');
  };
  const own = items.filter((p) => p.subject !== PERSONAL || subject === PERSONAL);
  const up = items.filter((p) => p.subject === PERSONAL && subject !== PERSONAL);
  const parts: string[] = [];
  if (own.length) parts.push(`Proposed for ${subject}:`, ...own.map(line), '');
  if (up.length) parts.push('Proposed for personal (upcast):', ...up.map(line), '');
  const writable = items.filter((p) => p.action !== '✗').length;
  parts.push(`  ${items.length} proposed, ${up.length} upcasts${writable < items.length ? `, ${items.length - writable} cannot be written` : ''}. Write these? [y/n/edit]`);
  if (id) parts.push('', `Proposal ${id}. Nothing has been written. Show this preview to the human as it is and wait for their answer; then call commit with this proposalId and the numbers they accept (or decline: true).`);
  return parts.join('\n');
}

export async function propose(ctx: BrainContext, raw: z.input<typeof proposeInput> | unknown, opts: ProposalOptions = {}): Promise<Proposal> {
  const input = parseInput(proposeInput, raw, 'propose');
  const planner = opts.planner ?? exactMatchPlanner;
  const planned: PlannedItem[] = [];
  // Topics are planned first: an episode may concern a card the same batch creates.
  const proposedSlugs = new Set<string>();
  const numbered = input.items.map((item, i) => ({ n: i + 1, item }));
  for (const { n, item } of [...numbered.filter((x) => x.item.type === 'topic'), ...numbered.filter((x) => x.item.type === 'episode')]) {
    const p = await plan(ctx, n, item, planner, proposedSlugs);
    if (p.slug && p.action === '+') proposedSlugs.add(`${p.subject}:${p.slug}`);
    planned.push(p);
  }
  planned.sort((a, b) => a.n - b.n);
  const id = randomUUID();
  const expires = new Date(Date.now() + (opts.ttlMinutes ?? 24 * 60) * 60_000);
  await write(ctx, { operation: 'propose' }, async (trx) => {
    await expireOld(trx, ctx.subject.name);
    await trx.withSchema(ctx.subject.name).insertInto('proposals').values({ id, expires_at: expires, items: JSON.stringify(planned) }).execute();
  });
  return { id, items: planned, expiresAt: expires.toISOString(), preview: previewText(ctx.subject.name, planned, id) };
}

async function expireOld(trx: Trx, subject: string): Promise<void> {
  await trx
    .withSchema(subject)
    .updateTable('proposals')
    .set({ status: 'expired', settled_at: new Date() })
    .where('status', '=', 'pending')
    .where('expires_at', '<', new Date())
    .execute();
}

export interface ItemOutcome {
  n: number;
  subject: string;
  result: 'written' | 'refused' | 'skipped';
  detail: string;
}

async function loadPending(trx: Trx, ctx: BrainContext, id: string, byHuman: boolean): Promise<PlannedItem[]> {
  await expireOld(trx, ctx.subject.name);
  const row = await trx.withSchema(ctx.subject.name).selectFrom('proposals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row) throw new BrainError('not_found', `no proposal ${id}`, 'Call propose again with the items.');
  if (row.status !== 'pending') throw new BrainError('conflict', `proposal ${id} is ${row.status}`, row.status === 'expired' ? 'Propose the items again.' : 'Nothing more to do for it.');
  if (row.asked_human && !byHuman) {
    throw new BrainError('forbidden', `proposal ${id} was put to the human directly; only their answer settles it`, 'Wait for the human; do not commit on their behalf.');
  }
  return row.items as PlannedItem[];
}

/** Writes the accepted items (all when `accept` is absent), per subject, and settles the proposal. */
export async function commitProposal(ctx: BrainContext, id: string, accept: readonly number[] | undefined, byHuman = false): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  await write(ctx, { operation: 'session-close' }, async (trx) => {
    outcomes.length = 0; // write() may run this again after a lost connection
    const items = await loadPending(trx, ctx, id, byHuman);
    const chosen = new Set(accept ?? items.map((p) => p.n));
    // Own subject first, then personal, topics before the episodes that may concern them;
    // each item under a savepoint, so one refusal
    // (the deny-list changed since propose) leaves the others standing.
    const rank = (p: PlannedItem) => Number(p.subject === PERSONAL) * 2 + Number(p.item.type === 'episode');
    const order = [...items].sort((a, b) => rank(a) - rank(b) || a.n - b.n);
    for (const p of order) {
      if (!chosen.has(p.n)) {
        outcomes.push({ n: p.n, subject: p.subject, result: 'skipped', detail: 'not accepted' });
        continue;
      }
      if (p.action === '✗') {
        outcomes.push({ n: p.n, subject: p.subject, result: 'refused', detail: p.problem ?? 'cannot be written' });
        continue;
      }
      await sql`SAVEPOINT proposal_item`.execute(trx);
      try {
        const done = await writeItem(trx, ctx, p, reasonFor(p.item));
        await sql`RELEASE SAVEPOINT proposal_item`.execute(trx);
        const what = p.item.type === 'topic' ? `${done} ${p.subject}:${p.slug}` : `recorded episode "${p.item.title}" in ${p.subject}`;
        outcomes.push({ n: p.n, subject: p.subject, result: 'written', detail: what });
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT proposal_item`.execute(trx);
        if (!(error instanceof BrainError) && !sqlStateOf(error)) throw error;
        outcomes.push({ n: p.n, subject: p.subject, result: 'refused', detail: (error as Error).message });
      }
    }
    await sql`SELECT set_config('brain.reason', 'session-close', true)`.execute(trx);
    await trx
      .withSchema(ctx.subject.name)
      .updateTable('proposals')
      .set({ status: 'committed', settled_at: new Date(), outcome: JSON.stringify(outcomes), asked_human: byHuman })
      .where('id', '=', id)
      .execute();
  });
  return outcomes.sort((a, b) => a.n - b.n);
}

export async function declineProposal(ctx: BrainContext, id: string, byHuman = false): Promise<void> {
  await write(ctx, { operation: 'session-close', reason: 'declined' }, async (trx) => {
    await loadPending(trx, ctx, id, byHuman);
    await trx.withSchema(ctx.subject.name).updateTable('proposals').set({ status: 'declined', settled_at: new Date() }).where('id', '=', id).execute();
  });
}

/** Marks a proposal as put to the human directly: from now on only their answer settles it. */
export async function markAskedHuman(ctx: BrainContext, id: string): Promise<void> {
  await write(ctx, { operation: 'propose' }, async (trx) => {
    await trx.withSchema(ctx.subject.name).updateTable('proposals').set({ asked_human: true }).where('id', '=', id).execute();
  });
}

export function outcomeText(outcomes: readonly ItemOutcome[]): string {
  const mark = { written: '✓', refused: '✗', skipped: '–' } as const;
  const written = outcomes.filter((o) => o.result === 'written').length;
  return [...outcomes.map((o) => `  [${o.n}] ${mark[o.result]} ${o.detail}`), `  ${written} written.`].join('\n');
}
