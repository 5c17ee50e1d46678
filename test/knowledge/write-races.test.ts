// Ten writers racing on one card. On the server each writer has its own pooled login
// connection, so their transactions really interleave; on PGlite they queue on the one
// connection, but their reads (search before add) still interleave between transactions.
// Every acknowledged text must be in the card afterwards, and one title makes one card.
import { beforeAll, expect, it } from 'vitest';
import { BrainError, createTopic, getTopic, upcast, type BrainContext } from '../../services/knowledge/index.js';
import { remember } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const WRITERS = 10;
const texts = (tag: string) => Array.from({ length: WRITERS }, (_, i) => `Observation ${tag}${i}: the ${['red', 'green', 'blue', 'amber', 'violet', 'grey', 'white', 'black', 'orange', 'teal'][i]} lamp blinks twice.`);

/** Runs every writer at once and returns the settled outcomes in order. */
function race<T>(jobs: (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
  return Promise.all(jobs.map((job) => job().then((value) => ({ status: 'fulfilled' as const, value }), (reason: unknown) => ({ status: 'rejected' as const, reason }))));
}

function failures(outcomes: PromiseSettledResult<unknown>[]): string[] {
  return outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason instanceof BrainError ? `${o.reason.code}: ${o.reason.message}` : String(o.reason)] : []));
}

describeOnBothDatabases('concurrent writers on one card', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
  });

  it('ten appends through remember to one card: every acknowledged text is in it', async () => {
    await createTopic(homelab, { slug: 'tool/signal-lamp', kind: 'tool', title: 'Signal lamp', body: 'A lamp on the rack.' });
    const wanted = texts('append');
    const outcomes = await race(wanted.map((body) => () => remember(homelab, { kind: 'tool', title: 'Signal lamp', body, mode: 'append' })));
    expect(failures(outcomes)).toEqual([]);
    const acknowledged = outcomes.flatMap((o, i) => (o.status === 'fulfilled' && o.value.action === 'updated' && o.value.card.slug === 'tool/signal-lamp' ? [wanted[i]!] : []));
    expect(acknowledged).toHaveLength(WRITERS);
    const card = await getTopic(homelab, { slug: 'tool/signal-lamp' });
    expect(wanted.filter((t) => !card.body.includes(t))).toEqual([]);
    expect(card.body.startsWith('A lamp on the rack.')).toBe(true);
  });

  it('ten creates of one new title through remember: one card holding all ten texts', async () => {
    const wanted = texts('create');
    const outcomes = await race(wanted.map((body) => () => remember(homelab, { kind: 'tool', title: 'Beacon relay', body })));
    expect(failures(outcomes)).toEqual([]);
    const cards = await brain().admin.query<{ slug: string; body: string }>(`SELECT slug, body FROM homelab.topics WHERE title = 'Beacon relay' ORDER BY id`);
    expect(cards.map((c) => c.slug)).toEqual(['tool/beacon-relay']);
    const fulfilled = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(fulfilled.map((r) => r.card.slug)).toEqual(Array(WRITERS).fill('tool/beacon-relay'));
    expect(fulfilled.filter((r) => r.action.startsWith('created'))).toHaveLength(1);
    expect(wanted.filter((t) => !cards[0]!.body.includes(t))).toEqual([]);
    // The losers' inserts became updates: one INSERT row and one UPDATE row (with one
    // version) per appended text, nothing more.
    const outbox = await brain().admin.query<{ operation: string; n: number }>(
      `SELECT operation, count(*)::int AS n FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'tool/beacon-relay' GROUP BY operation ORDER BY operation`,
    );
    expect(outbox).toEqual([
      { operation: 'INSERT', n: 1 },
      { operation: 'UPDATE', n: WRITERS - 1 },
    ]);
    const [versions] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.versions v JOIN homelab.topics t ON t.id = v.entity_id WHERE v.entity = 'topic' AND t.slug = 'tool/beacon-relay'`);
    expect(versions!.n).toBe(WRITERS - 1);
  });

  it('ten creates of one slug through create: one card, one success, the others told it exists', async () => {
    const outcomes = await race(texts('slug').map((body) => () => createTopic(homelab, { slug: 'tool/one-slug', kind: 'tool', title: 'One slug', body })));
    const codes = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : o.reason instanceof BrainError ? o.reason.code : String(o.reason)));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes.filter((c) => c === 'already_exists')).toHaveLength(WRITERS - 1);
    const [n] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM homelab.topics WHERE title = 'One slug'`);
    expect(n!.n).toBe(1);
  });

  it('ten upcasts from a project into one new personal card: every text arrives', async () => {
    const wanted = texts('upcast');
    for (const [i, body] of wanted.entries()) await createTopic(homelab, { slug: `tool/lamp-note-${i}`, kind: 'tool', title: `Lamp note ${i}`, body });
    const outcomes = await race(
      wanted.map((_, i) => () => upcast(homelab, { slug: `tool/lamp-note-${i}`, personalSlug: 'tool/lamp-notes', title: 'Lamp notes', reason: 'applies to any lamp', bodyMode: 'append' })),
    );
    expect(failures(outcomes)).toEqual([]);
    const fulfilled = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(fulfilled).toHaveLength(WRITERS);
    expect(fulfilled.filter((r) => r.action === 'created')).toHaveLength(1);
    const card = await getTopic(homelab, { subject: 'personal', slug: 'tool/lamp-notes' });
    expect(wanted.filter((t) => !card.body.includes(t))).toEqual([]);
  });

  it('ten upcasts appending into an existing personal card: every text arrives', async () => {
    const wanted = texts('more');
    for (const [i, body] of wanted.entries()) await createTopic(homelab, { slug: `tool/lamp-more-${i}`, kind: 'tool', title: `Lamp more ${i}`, body });
    await upcast(homelab, { slug: 'tool/lamp-more-0', personalSlug: 'tool/lamp-more', title: 'Lamp more', reason: 'applies to any lamp' });
    const outcomes = await race(wanted.slice(1).map((_, i) => () => upcast(homelab, { slug: `tool/lamp-more-${i + 1}`, personalSlug: 'tool/lamp-more', reason: 'applies to any lamp', bodyMode: 'append' })));
    expect(failures(outcomes)).toEqual([]);
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value.action === 'updated')).toHaveLength(WRITERS - 1);
    const card = await getTopic(homelab, { subject: 'personal', slug: 'tool/lamp-more' });
    expect(wanted.filter((t) => !card.body.includes(t))).toEqual([]);
  });
});
