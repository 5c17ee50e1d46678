// A hybrid search asks for the query's embedding before its keyword statements run, and lets the
// event loop turn once before them (services/search/search.ts, startQueryEmbedding): the embedded
// brain's statements hold the thread, and fetch() writes an embedder's request only when the loop
// turns, so without that turn an embedder in another process (Ollama) began computing only after
// the keyword statements, and its time came on top of theirs.
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createContext, type BrainContext } from '../../services/knowledge/context.js';
import { createTopic } from '../../services/knowledge/index.js';
import { search } from '../../services/search/index.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

/** The SQL text of a raw statement (every search statement is one), else the node's kind. */
function textOf(node: RootOperationNode): string {
  return node.kind === 'RawNode' ? node.sqlFragments.join('?') : node.kind;
}

describeOn('pglite', 'the query embedding goes first', (brain) => {
  const events: string[] = [];
  let traced: BrainContext;

  /** An embedder that notes when it is asked, and when the event loop next turns after that. */
  const embedder: Embedder = {
    model: 'first-stub',
    dimensions: 512,
    embedDocuments: async (texts) => texts.map(() => new Array<number>(512).fill(0.05)),
    embedQuery: async () => {
      events.push('embedQuery');
      setImmediate(() => events.push('loop turned'));
      return new Array<number>(512).fill(0.05);
    },
    health: async () => ({ ok: true }),
  };

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'first/backups', kind: 'environment', title: 'Nightly backups', body: 'pgBackRest writes to the NAS every night.' });
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        events.push(`statement ${textOf(args.node)}`);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    traced = await createContext(homelab.subject, brain().subjectDb('homelab').db.withPlugin(plugin));
  });

  it('the embedding is asked for, and the loop turns, before the keyword statement runs', async () => {
    events.length = 0;
    const r = await search(traced, { query: 'nightly backups', mode: 'hybrid', minRelevance: 0 }, { embedder });
    expect(r.mode).toBe('hybrid');
    expect(r.hits.map((h) => h.slug)).toContain('first/backups');
    // The keyword side's statements: its tables' statistics (keyword.ts, planParts) and its ranking.
    const keyword = events.findIndex((e) => e.startsWith('statement') && /reltuples|rank::float8 AS rank/.test(e));
    expect(keyword).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('embedQuery')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('loop turned')).toBeGreaterThan(events.indexOf('embedQuery'));
    expect(events.indexOf('loop turned')).toBeLessThan(keyword);
  });

  it('keyword mode asks the embedder for nothing', async () => {
    events.length = 0;
    const r = await search(traced, { query: 'nightly backups', mode: 'keyword' }, { embedder });
    expect(r.hits.map((h) => h.slug)).toContain('first/backups');
    expect(events.filter((e) => e.startsWith('statement')).length).toBeGreaterThan(0);
    expect(events).not.toContain('embedQuery');
  });
});
