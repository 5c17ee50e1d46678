// The embed worker against a real HTTP fake of Ollama, on the embedded brain (the only one
// with pgvector here): batching and task prefixes reach Ollama, writes never wait for it,
// search degrades while it is down and recovers when it is back, a model mismatch is refused,
// a model change re-embeds, and a project cannot write personal's embeddings.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { createTopic, updateTopic, type BrainContext } from '../../services/knowledge/index.js';
import { embedStale, reembedAll, search, startEmbedWorker, type EmbedWorker } from '../../services/search/index.js';
import { describeOn, outcome } from '../support/both-databases.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { contextFor, roleOf } from '../support/knowledge.js';

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeOn('pglite', 'embed worker with Ollama', (brain) => {
  let ollama: FakeOllama;
  let embedder: OllamaEmbedder;
  let homelab: BrainContext;
  let worker: EmbedWorker | undefined;
  const embedRequests = () => ollama.requests.filter((r) => r.path === '/api/embed');

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: { 'nomic-embed-text:latest': 768, 'tiny-embed:latest': 512 } });
    embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 4, timeoutMs: 2_000 });
    homelab = await contextFor(brain(), 'homelab');
    for (let i = 0; i < 10; i++) {
      await createTopic(homelab, { slug: `svc/service-${i}`, kind: 'environment', title: `Service ${i}`, body: `Service number ${i} runs on host alpha-${i}.` });
    }
    await createTopic(homelab, { slug: 'svc/backups', kind: 'environment', title: 'Nightly database backups', body: 'pgBackRest writes incrementals to the NAS every night.' });
  });
  afterAll(async () => {
    await worker?.stop();
    await ollama.close();
  });

  it('embeds pending cards in batches, with the document prefix, and reports nothing pending', async () => {
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 30, maxBackoffMs: 200 });
    await worker.drain();
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0, model: 'nomic-embed-text', dims: 768 });
    const requests = embedRequests();
    expect(requests.length).toBeGreaterThanOrEqual(3); // 11 one-chunk cards, 4 texts per request
    for (const r of requests) {
      expect(r.body.input.length).toBeLessThanOrEqual(4);
      for (const text of r.body.input) expect(text).toMatch(/^search_document: # /);
    }
    const [row] = await brain().admin.query<{ n: number; models: string[] }>(
      'SELECT count(DISTINCT topic_id)::int AS n, array_agg(DISTINCT model || \'/\' || dims) AS models FROM homelab.chunks',
    );
    expect(row).toEqual({ n: 11, models: ['nomic-embed-text/768'] });
  });

  it('searches by meaning with the query prefix, and fuses both lists', async () => {
    ollama.requests.length = 0;
    const r = await search(homelab, { minRelevance: 0, query: 'nightly backups of the database' }, { embedder, embedderStatus: worker!.status() });
    expect(r.mode).toBe('hybrid');
    expect(r.warnings).toEqual([]);
    expect(r.pendingEmbeddings).toBe(0);
    expect(r.hits[0]).toMatchObject({ slug: 'svc/backups', matchedBy: 'both' });
    expect(embedRequests().map((q) => q.body.input)).toEqual([['search_query: nightly backups of the database']]);
    const semantic = await search(homelab, { minRelevance: 0, query: 'nightly backups of the database', mode: 'semantic' }, { embedder });
    expect(semantic.hits[0]).toMatchObject({ slug: 'svc/backups', matchedBy: 'vector' });
    expect(semantic.hits[0]!.score).toBeGreaterThan(0.3);
  });

  it('a model never calibrated here (nomic-embed-text) is not gated by the floor: its hits come with their relevance', async () => {
    const q = 'quarterly sales forecast for the Berlin office';
    const r = await search(homelab, { query: q, limit: 5 }, { embedder });
    expect(r.mode).toBe('hybrid');
    expect(r.belowFloor).toBe(0);
    expect(r.hits.length).toBeGreaterThan(0);
    for (const h of r.hits) expect(h.relevance).toBeGreaterThanOrEqual(0);
    // Keyword search does not depend on the embedder's scale: it is gated.
    const keyword = await search(homelab, { query: q, mode: 'keyword' }, { embedder });
    expect(keyword.hits).toEqual([]);
    // Asked for, a floor applies to the uncalibrated model too.
    expect((await search(homelab, { query: q, minRelevance: 0.99 }, { embedder })).hits).toEqual([]);
  });

  it('keeps writing while Ollama is down; search warns and answers by keyword; pending drains when it is back', async () => {
    await ollama.down();
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      await createTopic(homelab, { slug: `svc/queue-${i}`, kind: 'environment', title: `Message queue ${i}`, body: `RabbitMQ broker ${i} for the job runners.` });
    }
    await updateTopic(homelab, { slug: 'svc/backups', body: 'pgBackRest writes incrementals to the NAS every night, fulls on Sundays.' });
    expect(Date.now() - started).toBeLessThan(2_000); // writes never wait for the embedder
    await until('the worker to notice', () => worker!.status().state === 'degraded');
    const status = worker!.status();
    expect(status.pending).toBe(4);
    expect(status.lastError).toMatch(/Ollama at http:\/\/127\.0\.0\.1:\d+ is unreachable/);

    const r = await search(homelab, { minRelevance: 0, query: 'message queue broker' }, { embedder, embedderStatus: status });
    expect(r.mode).toBe('keyword');
    expect(r.warnings.join('\n')).toMatch(/^semantic search unavailable: Ollama at http:\/\/127\.0\.0\.1:\d+ is unreachable .*keyword-only/m);
    expect(r.warnings.join('\n')).toMatch(/4 card\(s\) of this subject are not embedded yet/);
    expect(r.pendingEmbeddings).toBe(4);
    expect(r.hits.map((h) => h.slug)).toContain('svc/queue-0');

    await ollama.up();
    await worker!.drain();
    expect(worker!.status()).toMatchObject({ state: 'ok', pending: 0 });
    expect(worker!.status().lastError).toBeUndefined();
    const back = await search(homelab, { minRelevance: 0, query: 'rabbitmq job runners', mode: 'semantic' }, { embedder });
    expect(back.hits.slice(0, 3).map((h) => h.slug).sort()).toEqual(['svc/queue-0', 'svc/queue-1', 'svc/queue-2']);
    expect(back.warnings).toEqual([]);
  });

  it('refuses vectors from the wrong model and stores nothing for them', async () => {
    ollama.setMode({ wrongModel: 'all-minilm' });
    try {
      await createTopic(homelab, { slug: 'svc/dns', kind: 'environment', title: 'DNS', body: 'dnsmasq on the router.' });
      await until('the mismatch to show', () => /model mismatch/.test(worker!.status().lastError ?? ''));
      expect(worker!.status()).toMatchObject({ state: 'degraded', pending: 1 });
      const [row] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.chunks c JOIN homelab.topics t ON t.id = c.topic_id WHERE t.slug = 'svc/dns'");
      expect(row!.n).toBe(0);
    } finally {
      ollama.setMode({ wrongModel: null });
    }
    await worker!.drain();
    expect(worker!.status().pending).toBe(0);
  });

  it('re-embeds on a model change, never comparing vectors across models', async () => {
    await worker!.stop();
    expect(worker!.status().state).toBe('off');
    const tiny = new OllamaEmbedder({ url: ollama.url, model: 'tiny-embed', dimensions: 512 });
    const total = 15;
    // One card caught up with the new model: the brain now holds both models.
    const one = await embedStale(homelab, tiny, { slug: 'svc/backups' });
    expect(one).toMatchObject({ embedded: 1, model: 'tiny-embed', pending: total - 1 });
    const models = await brain().admin.query<{ model: string; n: number }>('SELECT model, count(DISTINCT topic_id)::int AS n FROM homelab.chunks GROUP BY model ORDER BY model');
    expect(models).toEqual([
      { model: 'nomic-embed-text', n: total - 1 },
      { model: 'tiny-embed', n: 1 },
    ]);
    // The new model's query sees only the new model's vectors; the old one's only its own.
    const newSide = await search(homelab, { minRelevance: 0, query: 'service number host alpha', mode: 'semantic', limit: 20 }, { embedder: tiny });
    expect(newSide.hits.map((h) => h.slug)).toEqual(['svc/backups']);
    expect(newSide.warnings.join(' ')).toMatch(/14 card\(s\) of this subject are not embedded yet with tiny-embed/);
    const oldSide = await search(homelab, { minRelevance: 0, query: 'service number host alpha', mode: 'semantic', limit: 20 }, { embedder });
    expect(oldSide.hits.map((h) => h.slug)).not.toContain('svc/backups');
    expect(oldSide.hits.length).toBe(total - 1);

    worker = startEmbedWorker({ ctx: homelab, embedder: tiny, batchSize: 5, pollMs: 30 });
    await worker.drain();
    const after = await brain().admin.query<{ model: string; dims: number }>('SELECT DISTINCT model, dims FROM homelab.chunks');
    expect(after).toEqual([{ model: 'tiny-embed', dims: 512 }]);
    // reembedAll redoes everything even though nothing changed.
    const again = await reembedAll(homelab, tiny, { batchSize: 6 });
    expect(again).toMatchObject({ embedded: total, unchanged: 0, pending: 0 });
  });

  it('lets a project read personal embeddings but never write them', async () => {
    const personal = await contextFor(brain(), 'personal');
    await createTopic(personal, { slug: 'method/backups', kind: 'methodology', title: 'Three copies of every backup', body: 'Two media, one offsite.' });
    const done = await embedStale(personal, embedder);
    expect(done.embedded).toBe(1);
    const role = roleOf(brain(), 'homelab');
    expect(await outcome(() => brain().asRole(role, (s) => s.query('SELECT count(*) FROM personal.chunks')))).toBe('ok');
    expect(await outcome(() => brain().asRole(role, (s) => s.query('UPDATE personal.chunks SET text = $1', ['forged'])))).toBe('42501');
    expect(await outcome(() => brain().asRole(role, (s) => s.query('DELETE FROM personal.embedding_state')))).toBe('42501');
    expect(
      await outcome(() =>
        brain().asRole(role, (s) =>
          s.query("INSERT INTO personal.embedding_state (topic_id, model, dims, source_updated_at, content_hash, chunk_count) SELECT id, 'x', 1, now(), 'h', 0 FROM personal.topics LIMIT 1"),
        ),
      ),
    ).toBe('42501');
    // A project search reaches personal's vectors, labelled.
    const r = await search(homelab, { minRelevance: 0, query: 'three copies offsite', mode: 'semantic' }, { embedder });
    expect(r.hits.find((h) => h.slug === 'method/backups')).toMatchObject({ subject: 'personal', matchedBy: 'vector' });
    // ... and a project's worker embeds only its own schema: writing into personal left personal pending for personal's worker.
    await createTopic(homelab, { subject: 'personal', slug: 'method/restore-drills', kind: 'methodology', title: 'Restore drills', body: 'Restore a backup every quarter.', reason: 'generic practice' });
    // (homelab's own worker runs with the new model; stop it, or each model's vectors would keep
    // replacing the other's card by card, and embed homelab with the old one too, to be sure)
    await worker?.stop();
    const own = await embedStale(homelab, embedder);
    expect(own.embedded).toBe(15);
    const [p] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM personal.chunks c JOIN personal.topics t ON t.id = c.topic_id WHERE t.slug = 'method/restore-drills'");
    expect(p!.n).toBe(0);
  });
});
