// What keeps search before add affordable under load (bench/load/mcp-load.ts): a whole card as
// the query plans like a question on a table of a few thousand cards, each selecting word found
// through the full-text index rather than by testing every card against every word; and the
// candidate searches let only the rarest words select (maxTerms).
import { expect, it } from 'vitest';
import { searchColumnStats } from '../../services/search/column-stats.js';
import { keywordSearch, rankStatement } from '../../services/search/keyword.js';
import { CANDIDATE_PLAN_LIMITS, remember } from '../../services/search/remember.js';
import { DEFAULT_PLAN_LIMITS, planMatch, type ColumnStats, type MatchPlan } from '../../services/search/selectivity.js';
import { parseTextQuery } from '../../services/search/text-query.js';
import { generateSubject, Vocabulary } from '../../bench/search/synthetic.js';
import { mulberry32 } from '../../bench/prng.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

const stats = (rows: number, frequencies: Record<string, number>): ColumnStats => ({ averageSize: 1000, rows, minFrequency: 0.01, frequencies: new Map(Object.entries(frequencies)) });

it('maxTerms: only the rarest words select, the others only rank, and no pairs are added', () => {
  const common = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`w${String(i).padStart(2, '0')}`, 0.02 + i * 0.001]));
  const words = Object.keys(common);
  const all = planMatch(words, stats(1_000, common), DEFAULT_PLAN_LIMITS)!;
  expect(all.terms).toHaveLength(30);
  const capped = planMatch(words, stats(1_000, common), { ...DEFAULT_PLAN_LIMITS, maxTerms: 16 })!;
  expect(capped.terms.map((t) => t.lexemes)).toEqual(words.slice(0, 16).map((w) => [w]));
  expect(capped.dropped).toEqual(words.slice(16));
  expect(CANDIDATE_PLAN_LIMITS.maxTerms).toBe(16);
});

/** Every node of an EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) plan. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

describeOnBothDatabases('search before add on a table of a few thousand cards', (brain, target) => {
  const vocab = new Vocabulary(5_000);
  const r = mulberry32(11);
  const text = () => `${vocab.sentence(r, 3)}\n\n${vocab.sentence(r, 50)}`;

  it('looks up the cards of each selecting word once, never testing every card against every word', async () => {
    await generateSubject(brain().admin, 'homelab', vocab, { topics: 2_000, episodes: 0, vectors: undefined, seed: 3 });
    const ctx = await contextFor(brain(), 'homelab');
    const q = parseTextQuery(text());
    const filters = { kinds: [], tags: [], since: undefined, until: undefined, includeEpisodes: false, includeTopics: true };
    const columns = await searchColumnStats(ctx.db, [{ subject: 'homelab', table: 'topics' }]);
    const lexemes = (await brain().admin.query<{ l: string[] }>('SELECT brain.query_lexemes(brain.text_search_config(), $1) AS l', [q.words]))[0]!.l;
    const plan = planMatch(lexemes, columns.get('homelab.topics')!, DEFAULT_PLAN_LIMITS);
    expect(plan?.terms.length).toBeGreaterThan(30);
    const compiled = rankStatement(['homelab'], q, filters, 50, new Map<string, MatchPlan>([['homelab.topics', plan!]])).compile(ctx.db);
    const [explained] = await brain().admin.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${compiled.sql}`, compiled.parameters);
    const all = nodes(explained!['QUERY PLAN'][0].Plan);
    // No card is tested against the terms one by one in a join (the plan that scanned the table)...
    expect(all.filter((n) => String(n['Join Filter'] ?? '').includes('@@'))).toEqual([]);
    // ...each term's cards are looked up by a subquery run once per term (through the index in
    // PGlite; a server may read a table this small whole, once per term, at native speed).
    const perTerm = all.filter((n) => n['Alias'] === 'c');
    expect(perTerm).toHaveLength(1);
    expect(perTerm[0]!['Actual Loops'] ?? plan!.terms.length).toBe(plan!.terms.length);
    if (target === 'pglite') expect(all.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'topics_search_idx')).toBe(true);
    // And the statement runs, as the subject's role, with the same answer as keywordSearch gives.
    const direct = await keywordSearch(ctx.db, ['homelab'], q, filters, 50);
    expect(direct.narrowed.get('homelab.topics')?.terms.length).toBe(plan!.terms.length);
    expect(direct.hits).toHaveLength(50);
  });

  it('still updates the card a remembered text duplicates, with the candidate limits', async () => {
    const ctx = await contextFor(brain(), 'homelab');
    await brain().admin.exec('ANALYZE homelab.topics');
    const [card] = await brain().admin.query<{ kind: string; title: string; body: string }>(`SELECT kind, title, body FROM homelab.topics WHERE slug = 'syn/1234'`);
    const r = await remember(ctx, { kind: card!.kind, title: card!.title, body: card!.body });
    expect(r.action).toBe('updated');
    expect(r.card.slug).toBe('syn/1234');
  });
});
