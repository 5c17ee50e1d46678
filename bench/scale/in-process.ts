// A kept brain opened in the bench's own process as a one-subject server opens it, with the
// server's search dependencies: the embedder the environment names (the fake Ollama process) as
// the query embedder, and the pending count from a worker's status rather than counted per
// search. For parts.ts and cold-reads.ts.
import type { RuntimeConfig } from '../../config/runtime.js';
import { openSubject } from '../../db/open.js';
import { createContext } from '../../services/knowledge/context.js';
import { chooseEmbedder } from '../../services/runtime/embedding.js';
import { countPending } from '../../services/search/pending.js';
import type { SearchMode } from '../../services/search/search.js';
import { SUBJECT } from './brain-home.js';

export async function openForSearch(rt: RuntimeConfig, mode: SearchMode) {
  const conn = await openSubject(rt, SUBJECT);
  try {
    const ctx = await createContext(conn.subject, conn.handle.db);
    const { embedder } = await chooseEmbedder(rt);
    if (!embedder && mode !== 'keyword') throw new Error(`no embedder: ${mode} search needs the fake Ollama`);
    const model = embedder ? { model: embedder.model, dims: embedder.dimensions } : undefined;
    const pending = model ? await countPending(ctx.db, ctx.subject.name, model) : 0;
    const deps = embedder && model ? { embedder, embedderStatus: { state: 'ok' as const, pending, ...model } } : {};
    return { conn, ctx, embedder, model, deps };
  } catch (error) {
    await conn.close();
    throw error;
  }
}
