// What a server does once it listens, so the first search is as fast as the tenth: each
// subject runs one search of each kind, which brings the catalog and the search indexes into
// PGlite's cache; Ollama loads its model (into Ollama's memory, not this process's). Then the
// first subject asks itself a question of its own WARM_SEARCHES times (warm-queries.ts), which
// gets Postgres's code optimised before real searches need it. Between the two, an embedded
// brain with an embedder reads its vector index into PGlite's page cache (db/vector-prewarm.ts),
// which the first searches would otherwise read page by page. It runs in the background, after
// the banner, and a request that comes first simply does the same work.
//
// The offline model is not loaded here. Its threads hold 130-180 MB, most of what an idle server
// would otherwise hold besides PGlite, and they stop after a few minutes without work anyway, so
// loading at start only served searches made in the first minutes. It loads on first need
// instead: when an MCP session opens (a client that connects is about to search; the load takes
// about half a second, while the client lists tools), on a search, or for the worker's backlog.
// The warm-up's hybrid search uses a stand-in vector of the model's size, which warms the same
// SQL and HNSW index without the model.
import type { Logger } from 'pino';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { prewarmVectorIndexes } from '../../db/vector-prewarm.js';
import type { Embedder } from '../embeddings/embedder.js';
import { OfflineEmbedder } from '../embeddings/offline.js';
import { search, type SearchDeps } from '../search/index.js';
import type { EmbedderChoice } from './embedding.js';
import type { RunningSubjectServer } from './subject-server.js';
import { WARM_SEARCHES, warmUpQuestion } from './warm-queries.js';

/** The pause before each of warmCode's searches: a request that came meanwhile goes first. */
const WARM_PAUSE_MS = 25;

/**
 * The subject's own question (warm-queries.ts), WARM_SEARCHES times one after another, so
 * Postgres's code is optimised before the first real searches rather than during them. Once per
 * process: every subject of an embedded brain runs on the same compiled module. The vector side
 * gets a stand-in vector, so a real embedder is not asked to embed the question.
 */
async function warmCode(server: RunningSubjectServer | undefined, vectors: Embedder | undefined, logger: Logger): Promise<void> {
  if (!server) return;
  const started = performance.now();
  const query = await warmUpQuestion(server.ctx).catch((err: unknown) => {
    logger.info({ err, subject: server.subject.name }, 'the warm-up question could not be read');
    return undefined;
  });
  const searches = query === undefined ? 0 : WARM_SEARCHES;
  let failed = 0;
  for (let i = 0; i < searches; i++) {
    await new Promise((resolve) => setTimeout(resolve, WARM_PAUSE_MS).unref());
    await search(server.ctx, { query: query!, mode: vectors ? 'hybrid' : 'keyword' }, warmDeps(vectors)).catch(() => failed++);
  }
  logger.info({ searches, failed, ms: Math.round(performance.now() - started) }, 'warmed the search code');
}

export interface WarmUpState {
  /** 'warming' until done; 'ready' after; 'failed' when the embedder did not answer (search is keyword-only until it does). */
  state: 'warming' | 'ready' | 'failed';
  ms?: number;
}

/** Answers every query with the same unit vector, as `of` would size it: for warming the vector query, not for ranking. */
export function standIn(of: Embedder): Embedder {
  const v = Array.from({ length: of.dimensions }, (_, i) => (i === 0 ? 1 : 0));
  return {
    model: of.model,
    dimensions: of.dimensions,
    embedDocuments: async (texts) => texts.map(() => v),
    embedQuery: async () => v,
    health: async () => ({ ok: true }),
  };
}

/**
 * The search deps of the warm-up's searches. A server's own searches read the pending count from
 * its embed worker's status; without one, search counts the pending cards itself, a read of every
 * card. At 100,000 pages (955,345 pending) each count took 0.6-1.8 s: the warm-up's twenty searches
 * held the database's one thread for 11-14 s, every real search of those seconds waiting behind
 * one (444-1,235 ms instead of 40-130). So the warm-up passes a status of its own.
 */
export function warmDeps(embedder: Embedder | undefined): SearchDeps {
  if (!embedder) return {};
  return { embedder, embedderStatus: { state: 'ok', pending: 0, model: embedder.model, dims: embedder.dimensions } };
}

/**
 * An embedded brain's vector index into its page cache (db/vector-prewarm.ts), for the subjects
 * served, at the embedder's dimensions. After the first searches, so that the catalog and the
 * search code are ready before the pages are read, and before warmCode, whose searches then run
 * on the pages the real ones will read.
 */
async function prewarmVectors(embedded: EmbeddedDatabase, servers: readonly RunningSubjectServer[], dims: number, logger: Logger): Promise<void> {
  const started = performance.now();
  try {
    const r = await prewarmVectorIndexes(embedded, { schemas: servers.map((s) => s.subject.name), dims });
    const pages = r.indexes.reduce((n, i) => n + i.read, 0);
    logger.info({ pages, of: r.indexes.reduce((n, i) => n + i.pages, 0), budget: r.budget, stopped: r.stopped || undefined, unavailable: r.unavailable, ms: Math.round(performance.now() - started) }, 'read the vector index into the page cache');
  } catch (err) {
    logger.warn({ err }, 'the vector index could not be read ahead; the first searches read it');
  }
}

export function warmUp(
  servers: readonly RunningSubjectServer[],
  choice: EmbedderChoice,
  logger: Logger,
  delayMs = 0,
  embedded?: EmbeddedDatabase,
): { readonly status: WarmUpState; done: Promise<void> } {
  const status: WarmUpState = { state: 'warming' };
  const done = (async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const started = performance.now();
    let embedderOk = true;
    const onDemand = choice.embedder instanceof OfflineEmbedder;
    if (choice.embedder && !onDemand) {
      try {
        await choice.embedder.embedQuery('warm up');
      } catch (err) {
        embedderOk = false;
        logger.warn({ err }, 'the embedder did not load at start; search is keyword-only until it does');
      }
    }
    const embedder = choice.embedder && onDemand ? standIn(choice.embedder) : choice.embedder;
    for (const s of servers) {
      for (const mode of ['keyword', ...(embedder && embedderOk ? (['hybrid'] as const) : [])] as const) {
        await search(s.ctx, { query: 'warm up', mode, limit: 1 }, warmDeps(embedder)).catch((err: unknown) => logger.info({ err, subject: s.subject.name }, 'warm-up search failed'));
      }
    }
    status.state = embedderOk ? 'ready' : 'failed';
    status.ms = Math.round(performance.now() - started);
    logger.info({ ms: status.ms, embedder: status.state, ...(onDemand ? { model: 'loads on first need' } : {}) }, 'warmed up');
    if (embedded && embedder && embedderOk) await prewarmVectors(embedded, servers, embedder.dimensions, logger);
    await warmCode(servers[0], embedder && embedderOk ? standIn(embedder) : undefined, logger);
  })();
  return { status, done };
}
