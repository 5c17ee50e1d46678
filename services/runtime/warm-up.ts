// What a server does once it listens, so the first search is as fast as the tenth: the
// embedder loads its model (the offline one needs a second or two; Ollama loads it into
// memory), and each subject runs one search of each kind, which brings the catalog and the
// search indexes into PGlite's cache. It runs in the background, after the banner, and a
// request that comes first simply does the same work itself.
import type { Logger } from 'pino';
import { search } from '../search/index.js';
import type { EmbedderChoice } from './embedding.js';
import type { RunningSubjectServer } from './subject-server.js';

export interface WarmUpState {
  /** 'warming' until done; 'ready' after; 'failed' when the embedder did not load (search is keyword-only until it does). */
  state: 'warming' | 'ready' | 'failed';
  ms?: number;
}

export function warmUp(servers: readonly RunningSubjectServer[], choice: EmbedderChoice, logger: Logger, delayMs = 0): { readonly status: WarmUpState; done: Promise<void> } {
  const status: WarmUpState = { state: 'warming' };
  const done = (async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const started = performance.now();
    let embedderOk = true;
    if (choice.embedder) {
      try {
        await choice.embedder.embedQuery('warm up');
      } catch (err) {
        embedderOk = false;
        logger.warn({ err }, 'the embedder did not load at start; search is keyword-only until it does');
      }
    }
    for (const s of servers) {
      for (const mode of ['keyword', ...(choice.embedder && embedderOk ? (['hybrid'] as const) : [])] as const) {
        await search(s.ctx, { query: 'warm up', mode, limit: 1 }, { embedder: choice.embedder }).catch((err: unknown) => logger.info({ err, subject: s.subject.name }, 'warm-up search failed'));
      }
    }
    status.state = embedderOk ? 'ready' : 'failed';
    status.ms = Math.round(performance.now() - started);
    logger.info({ ms: status.ms, embedder: status.state }, 'warmed up');
  })();
  return { status, done };
}
