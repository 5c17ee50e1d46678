// Keyword search on tables big enough to plan (selectivity.ts), on both databases, after
// an ANALYZE as the server's autovacuum or the embedded maintenance would run it: the common
// word only ranks, the rare word selects, filters and exclusions still hold, a plan that
// finds nothing falls back to plain any-word matching, and pg_stats shows a role only the
// statistics of tables it may read.
import { beforeAll, expect, it } from 'vitest';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { searchColumnStats } from '../../services/search/column-stats.js';
import { rankStatement } from '../../services/search/keyword.js';
import { rankedSearch, search } from '../../services/search/search.js';
import { parseTextQuery } from '../../services/search/text-query.js';
import { MATCH_ROW_BUDGET } from '../../services/search/selectivity.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';

// More cards holding "server" than a plan may select, so the planner must leave it out.
const CARDS = MATCH_ROW_BUDGET + 1_000;

describeOnBothDatabases('keyword search on big tables (planned)', (brain) => {
  let homelab: BrainContext;
  let personal: BrainContext;
  beforeAll(async () => {
    for (const [schema, n] of [['homelab', CARDS], ['personal', 800]] as const) {
      await brain().admin.exec(
        `INSERT INTO ${schema}.topics (slug, kind, title, body)
         SELECT 'note/' || g, 'concept', 'Note ' || g, 'Server rack notes, card ' || g || ': mentions w' || (g % 300) || ' and v' || (g % 40) || '.'
           FROM generate_series(1, ${n}) g`,
      );
    }
    homelab = await contextFor(brain(), 'homelab');
    personal = await contextFor(brain(), 'personal');
    await createTopic(homelab, { slug: 'svc/zigbee', kind: 'environment', title: 'Zigbee coordinator', body: 'The zigbee coordinator sits on the server shelf next to the rack.' });
    await createTopic(homelab, { slug: 'svc/mqtt', kind: 'tool', title: 'MQTT broker', body: 'Mosquitto relays the zigbee sensors to the server.' });
    await brain().admin.exec('ANALYZE homelab.topics; ANALYZE personal.topics');
  }, 120_000);

  it('selects by the rare word, ranks with every word, and labels personal hits', async () => {
    const r = await rankedSearch(homelab, { query: 'which server runs the zigbee coordinator?', mode: 'keyword' });
    const plan = r.keywordPlan!.narrowed.get('homelab.topics');
    expect(plan?.dropped).toContain('server');
    expect(plan?.terms.map((t) => t.lexemes)).toContainEqual(['zigbe']);
    expect(r.keywordPlan!.widened).toBe(false);
    const hits = await search(homelab, { minRelevance: 0, query: 'which server runs the zigbee coordinator?', mode: 'keyword' });
    expect(hits.hits.slice(0, 2).map((h) => h.slug)).toEqual(['svc/zigbee', 'svc/mqtt']);
    // personal is small enough to rank every "server" card; they come after, labelled.
    expect(hits.hits.slice(2).map((h) => h.subject)).toEqual(Array(8).fill('personal'));
  });

  it('plans personal too when a project searches it (the project role reads its statistics)', async () => {
    const r = await rankedSearch(homelab, { query: 'server rack w7', mode: 'keyword' });
    expect([...r.keywordPlan!.narrowed.keys()].sort()).toEqual(['homelab.topics', 'personal.topics']);
    expect(r.keyword.length).toBe(50);
    expect(new Set(r.keyword.map((h) => h.subject))).toEqual(new Set(['homelab', 'personal']));
  });

  it('falls back to plain any-word matching when the planned words find nothing', async () => {
    // Only homelab (personal alone would find its own "server" cards: the fallback is for an empty answer).
    const r = await rankedSearch(homelab, { query: 'server frobnicator', mode: 'keyword', subject: 'homelab' });
    expect(r.keywordPlan!.narrowed.get('homelab.topics')?.terms.map((t) => t.lexemes)).toEqual([['frobnic']]);
    expect(r.keywordPlan!.widened).toBe(true);
    expect(r.keyword.length).toBeGreaterThan(0); // every card says "server"
  });

  it('scores the candidates of a plan in float8, not numeric', async () => {
    // A decimal literal is numeric in SQL: the normaliser written with one computed every
    // candidate's score in numeric, a quarter of a planned statement's time in PGlite.
    const query = 'which server runs the zigbee coordinator?';
    const r = await rankedSearch(homelab, { query, mode: 'keyword', subject: 'homelab' });
    expect(r.keywordPlan!.narrowed.size).toBe(1);
    const filters = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: false, includeTopics: true };
    const compiled = rankStatement(['homelab'], parseTextQuery(query), filters, 50, r.keywordPlan!.narrowed).compile(homelab.db);
    expect(compiled.sql).toMatch(/pg_column_size/);
    const plan = await brain().admin.query<Record<string, string>>(`EXPLAIN (VERBOSE, COSTS OFF) ${compiled.sql}`, [...compiled.parameters]);
    const text = plan.map((row) => Object.values(row).join('')).join('\n');
    expect(text).toMatch(/Sort Key: \(\(sum\(/);
    expect(text).not.toMatch(/numeric/);
  });

  it('keeps filters and exclusions in the planned path', async () => {
    const kinds = await search(homelab, { minRelevance: 0, query: 'zigbee server', mode: 'keyword', kinds: ['tool'] });
    expect(kinds.hits.map((h) => h.slug)).toEqual(['svc/mqtt']);
    const excluded = await search(homelab, { minRelevance: 0, query: 'zigbee server -mosquitto', mode: 'keyword' });
    expect(excluded.hits[0]?.slug).toBe('svc/zigbee');
    expect(excluded.hits.map((h) => h.slug)).not.toContain('svc/mqtt');
  });

  it("averages the search column's stored size as pg_column_size gives it, also where it is TOASTed out of line", async () => {
    // Cards of 400 distinct 32-character words: each tsvector is several kB, stored out of line,
    // where pg_stats.avg_width sees only the 18-byte pointer.
    await brain().admin.exec(
      `INSERT INTO novel.topics (slug, kind, title, body)
       SELECT 'long/' || g, 'concept', 'Long ' || g, (SELECT string_agg(md5(g::text || '-' || i), ' ') FROM generate_series(1, 400) i)
         FROM generate_series(1, 200) g`,
    );
    await brain().admin.exec('ANALYZE novel.topics');
    const [stored] = await brain().admin.query<{ avg: number; width: number }>(
      "SELECT avg(pg_column_size(search))::float8 AS avg, (SELECT avg_width FROM pg_stats WHERE schemaname = 'novel' AND tablename = 'topics' AND attname = 'search') AS width FROM novel.topics",
    );
    expect(stored!.width).toBeLessThan(100);
    expect(stored!.avg).toBeGreaterThan(2_000);
    const novel = await contextFor(brain(), 'novel');
    const stats = (await searchColumnStats(novel.db, [{ subject: 'novel', table: 'topics' }])).get('novel.topics')!;
    expect(stats.averageSize).toBeGreaterThan(stored!.avg * 0.9);
    expect(stats.averageSize).toBeLessThan(stored!.avg * 1.1);
  });

  it('shows a role no statistics of a table it cannot read', async () => {
    const own = await searchColumnStats(homelab.db, [{ subject: 'homelab', table: 'topics' }]);
    expect(own.get('homelab.topics')!.frequencies.get('server')).toBeGreaterThan(0.9);
    // Postgres refuses even to look the table up for personal's role...
    await expect(searchColumnStats(personal.db, [{ subject: 'homelab', table: 'topics' }])).rejects.toMatchObject({ code: '42501' });
    // ...and pg_stats, asked directly, shows it nothing of homelab's vocabulary.
    const leaked = await brain().asRole(roleOf(brain(), 'personal'), (s) => s.query("SELECT attname FROM pg_stats WHERE schemaname = 'homelab'"));
    expect(leaked).toEqual([]);
  });
});
