// Topic rows are narrow (migrations/subject/0013_topics_narrow_rows.sql, 0014_topics_packed.sql): a long card's body,
// timeline and search vector live out of line, so a heap page holds dozens of topics and
// keyword search's first stage visits few pages. Checked where it shows: how many heap pages
// the rows occupy, on both databases; and that nothing is lost on the way, for cards written
// after the migration and for cards the migration rewrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../db/bootstrap.js';
import { createTopic, getTopic, type BrainContext } from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const CARDS = 40;

/** Text that neither repeats nor compresses much: made-up words from a seeded generator. */
function prose(seed: number, words: number): string {
  const syllables = ['ka', 'lo', 'mir', 'sen', 'tu', 'vex', 'dra', 'pol', 'quin', 'rah', 'zet', 'bu', 'fen', 'gor', 'hal', 'jo'];
  let x = seed * 2654435761;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const n = 2 + (next() % 3);
    let w = '';
    for (let j = 0; j < n; j++) w += syllables[next() % syllables.length];
    out.push(w);
  }
  return out.join(' ');
}

/** Heap pages holding the live rows whose slug starts with `prefix` (a row's ctid is (page, item)). */
async function pagesOf(brain: { admin: { query<T>(sql: string, params?: unknown[]): Promise<T[]> } }, prefix: string): Promise<{ rows: number; pages: number }> {
  const [r] = await brain.admin.query<{ rows: number; pages: number }>(
    `SELECT count(*)::int AS rows, count(DISTINCT (ctid::text::point)[0])::int AS pages FROM homelab.topics WHERE slug LIKE $1`,
    [`${prefix}%`],
  );
  return r!;
}

async function writeCards(ctx: BrainContext, prefix: string): Promise<void> {
  for (let i = 0; i < CARDS; i++) {
    await createTopic(ctx, {
      slug: `${prefix}${i}`,
      kind: 'concept',
      title: `Narrow row ${prefix}${i}`,
      summary: `card ${i} of the narrow-row test`,
      body: prose(i + 1, 260),
      timeline: `- 2026-01-0${(i % 9) + 1}: ${prose(i + 1000, 120)}`,
      frontmatter: { source: 'topic-rows test', n: i },
    });
  }
}

/** What each card holds, as digests: the same after a rewrite, or something was lost. */
async function digests(brain: { admin: { query<T>(sql: string, params?: unknown[]): Promise<T[]> } }, prefix: string): Promise<Record<string, string>> {
  const rows = await brain.admin.query<{ slug: string; d: string }>(
    `SELECT slug, md5(concat_ws('|', title, summary, body, timeline, frontmatter::text, search::text, created_at::text, updated_at::text)) AS d
       FROM homelab.topics WHERE slug LIKE $1 ORDER BY slug`,
    [`${prefix}%`],
  );
  return Object.fromEntries(rows.map((r) => [r.slug, r.d]));
}

describeOnBothDatabases('topic rows', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
  });

  it('a long card written now sits in a narrow row, and reads back whole', async () => {
    await writeCards(homelab, 'narrow/new-');
    const { rows, pages } = await pagesOf(brain(), 'narrow/new-');
    expect(rows).toBe(CARDS);
    // About 200 bytes a row: 40 rows fit on one or two 8 kB pages (2 kB rows would need ten).
    expect(pages).toBeLessThanOrEqual(3);
    const card = await getTopic(homelab, { slug: 'narrow/new-7' });
    expect(card.body).toBe(prose(8, 260));
    expect(card.timeline).toBe(`- 2026-01-08: ${prose(1007, 120)}`);
    expect(card.frontmatter).toMatchObject({ source: 'topic-rows test', n: 7 });
    const [found] = await brain().admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM homelab.topics WHERE search @@ plainto_tsquery(brain.text_search_config(), $1)`,
      [prose(8, 260).split(' ')[3]],
    );
    expect(found!.n).toBeGreaterThanOrEqual(1);
  });

  it('the migration narrows rows written before it and keeps every value', async () => {
    const { admin, config } = brain();
    // Rows as they were written before migration 0013: the default target leaves them about 2 kB wide.
    await admin.exec('ALTER TABLE homelab.topics RESET (toast_tuple_target)');
    await writeCards(homelab, 'narrow/old-');
    const wide = await pagesOf(brain(), 'narrow/old-');
    expect(wide.rows).toBe(CARDS);
    expect(wide.pages).toBeGreaterThanOrEqual(8);
    const before = await digests(brain(), 'narrow/');
    expect(Object.keys(before)).toHaveLength(2 * CARDS);

    // The two migrations, each in a transaction of its own as db/migrate.ts applies them.
    for (const file of ['0013_topics_narrow_rows.sql', '0014_topics_packed.sql']) {
      const migration = readFileSync(join(MIGRATIONS_DIR, 'subject', file), 'utf8');
      await admin.exec(`BEGIN; SET LOCAL ROLE "${config.ownerRole}"; SET LOCAL search_path = homelab; ${migration}; COMMIT`);
    }

    expect((await pagesOf(brain(), 'narrow/old-')).pages).toBeLessThanOrEqual(3);
    expect(await digests(brain(), 'narrow/')).toEqual(before);
    const [table] = await admin.query<{ options: string[]; clustered: number }>(
      `SELECT c.reloptions AS options, (SELECT count(*)::int FROM pg_index i WHERE i.indrelid = c.oid AND i.indisclustered) AS clustered
         FROM pg_class c WHERE c.oid = 'homelab.topics'::regclass`,
    );
    expect(table).toEqual({ options: ['toast_tuple_target=256'], clustered: 0 });
    // 0013 drops the search vector's index for its update; 0014 builds it again as 0002 made it.
    const indexes = await admin.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'homelab' AND indexname = 'topics_search_idx'`);
    expect(indexes.map((i) => i.indexdef)).toEqual(['CREATE INDEX topics_search_idx ON homelab.topics USING gin (search)']);
    // The indexes were rebuilt with the table: the slug and the search vector still find the card.
    const card = await getTopic(homelab, { slug: 'narrow/old-3' });
    expect(card.body).toBe(prose(4, 260));
    const [found] = await admin.query<{ slug: string }>(`SELECT slug FROM homelab.topics WHERE search @@ plainto_tsquery(brain.text_search_config(), $1) AND slug LIKE 'narrow/old-%'`, [
      prose(4, 260).split(' ')[5],
    ]);
    expect(found?.slug).toMatch(/^narrow\/old-/);
  });
});
