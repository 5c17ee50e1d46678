// The embed worker while its embedder stays down: it retries with backoff, and counts the pending
// cards once when it starts (the count the search warnings quote), not again at the first failure
// in the same step nor at every retry (a count reads every card: 50-110 ms of an embedded brain's
// one thread at 7,500 pages, 700 at 100,000, in slices); a retry
// asks the embedder's health, and then to embed one short text, before it reads a batch. The
// counts and batch reads are seen as the statements that reach the database.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { startEmbedWorker, type EmbedWorker } from '../../services/search/index.js';
import { RETRY_PROBE } from '../../services/search/worker.js';
import { describeOn } from '../support/both-databases.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { contextFor } from '../support/knowledge.js';
import { countingStatements } from '../support/statements.js';

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeOn('pglite', 'embed worker while its embedder stays down', (brain) => {
  let ollama: FakeOllama;
  let homelab: BrainContext;
  let worker: EmbedWorker | undefined;
  let counted: ReturnType<typeof countingStatements>;
  const retries: { failures: number }[] = [];
  const logger = { info: () => undefined, warn: (obj: object) => retries.push(obj as { failures: number }) };

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: { 'nomic-embed-text:latest': 768 } });
    const ctx = await contextFor(brain(), 'homelab');
    for (let i = 0; i < 3; i++) await createTopic(ctx, { slug: `svc/retry-${i}`, kind: 'environment', title: `Retry ${i}`, body: `Service ${i} waits for its embeddings.` });
    // countPending's slice statement (services/search/pending.ts), counted as it reaches the database: one a count here (three cards).
    counted = countingStatements(ctx, 'SELECT (SELECT count(*) FROM');
    homelab = counted.ctx;
    await ollama.down();
  });
  afterAll(async () => {
    await worker?.stop();
    await ollama.close();
  });

  it('counts the pending cards once as it starts, not again at its first failure nor at every retry, and reports them', async () => {
    const embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 4, timeoutMs: 2_000 });
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20, maxBackoffMs: 40, logger });
    await until('six failed tries', () => retries.length >= 6);
    expect(worker.status()).toMatchObject({ state: 'degraded', pending: 3 });
    expect(retries.map((r) => r.failures).slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    // One count before the first batch (none was taken yet); the first failure, in the same step, does not count again.
    expect(counted.count()).toBe(1);
  });

  it('counts again once a full look is due, and drains when the embedder is back', async () => {
    await worker!.stop();
    counted.reset();
    retries.length = 0;
    await createTopic(homelab, { slug: 'svc/retry-late', kind: 'environment', title: 'Retry late', body: 'Written while the embedder is down.' });
    const embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 4, timeoutMs: 2_000 });
    // A full look's interval shorter than the retries: every failure counts again.
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20, maxBackoffMs: 40, fullLookMs: 1, logger });
    await until('four failed tries', () => retries.length >= 4);
    expect(counted.count()).toBeGreaterThanOrEqual(retries.length);
    expect(worker.status()).toMatchObject({ state: 'degraded', pending: 4 });
    await ollama.up();
    await worker.drain();
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });
  });

  it('asks the embedder before reading a batch again: a retry while it is down reads no card', async () => {
    await worker!.stop();
    retries.length = 0;
    await createTopic(homelab, { slug: 'svc/retry-probe', kind: 'environment', title: 'Retry probe', body: 'Written before the embedder went down again.' });
    // pendingCards' statement (services/search/pending.ts): the batch a try reads.
    const batches = countingStatements(homelab, "SELECT 'topic' AS entity");
    await ollama.down();
    const embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 4, timeoutMs: 2_000 });
    worker = startEmbedWorker({ ctx: batches.ctx, embedder, batchSize: 8, pollMs: 20, maxBackoffMs: 40, logger });
    await until('five failed tries', () => retries.length >= 5);
    // The first try read its batch; the four retries asked Ollama's health and stopped there.
    expect(batches.count()).toBe(1);
    expect(worker.status()).toMatchObject({ state: 'degraded', pending: 1 });
    expect(worker.status().lastError).toMatch(/ECONNREFUSED|fetch failed|not reachable|unavailable/i);
    await ollama.up();
    await worker.drain();
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });
    expect(batches.count()).toBeGreaterThan(1);
  });

  it('a model that is listed but refuses to embed: a retry embeds one short text and reads no batch', async () => {
    await worker!.stop();
    retries.length = 0;
    await createTopic(homelab, { slug: 'svc/retry-unloadable', kind: 'environment', title: 'Retry unloadable', body: 'Written while the model could not load.' });
    const batches = countingStatements(homelab, "SELECT 'topic' AS entity");
    // /api/tags lists the model (health is ok); /api/embed answers 500, as Ollama does for a
    // model too large for the memory it has.
    ollama.setMode({ embedFailStatus: 500 });
    const embeds = () => ollama.requests.filter((r) => r.path === '/api/embed').map((r) => r.body.input as string[]);
    const before = embeds().length;
    const embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 4, timeoutMs: 2_000 });
    worker = startEmbedWorker({ ctx: batches.ctx, embedder, batchSize: 8, pollMs: 20, maxBackoffMs: 40, logger });
    await until('five failed tries', () => retries.length >= 5);
    const tried = embeds().slice(before);
    // The first try read its batch and sent the card's chunk; every retry sent only the probe.
    expect(batches.count()).toBe(1);
    expect(tried.length).toBeGreaterThanOrEqual(5);
    // (Ollama's embedder prefixes a document with nomic's task, "search_document: ".)
    const probe = [expect.stringMatching(new RegExp(`${RETRY_PROBE}$`))];
    expect(tried[0]).toEqual([expect.stringContaining('Written while the model could not load.')]);
    expect(tried.slice(1)).toEqual(Array.from({ length: tried.length - 1 }, () => probe));
    expect(worker.status()).toMatchObject({ state: 'degraded', pending: 1 });
    expect(worker.status().lastError).toMatch(/memory/);
    ollama.setMode({ embedFailStatus: null });
    await worker.drain();
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });
    expect(batches.count()).toBeGreaterThan(1);
  });
});
