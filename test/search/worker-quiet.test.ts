// The embed worker with nothing pending: between full looks it asks only whether a card changed
// since the last one is pending (pendingSince), so an awake server does not read every card every
// two seconds. What that short look cannot see, embeddings deleted without a card changing (a
// re-queue, a re-embed from another process), waits for the next full look: the periodic one, or
// the one drain() asks for. A full look counts first, and with nothing pending reads no batch (the
// batch's statement would visit every card in one go).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { startEmbedWorker, type EmbedWorker } from '../../services/search/index.js';
import { pendingSince, quietLookStart } from '../../services/search/pending.js';
import { describeOn } from '../support/both-databases.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { contextFor } from '../support/knowledge.js';
import { countingStatements } from '../support/statements.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describeOn('pglite', 'embed worker while nothing is pending', (brain) => {
  let ollama: FakeOllama;
  let embedder: OllamaEmbedder;
  let homelab: BrainContext;
  let worker: EmbedWorker | undefined;
  const model = { model: 'nomic-embed-text', dims: 768 };

  /** Whether the topic's current version has its embedding. */
  const embedded = async (slug: string) => {
    const [row] = await brain().admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM homelab.embedding_state es JOIN homelab.topics t ON t.id = es.topic_id AND es.source_updated_at = t.updated_at
        WHERE t.slug = $1 AND es.model = $2`,
      [slug, model.model],
    );
    return row!.n === 1;
  };
  /** What `brain reembed` or lint's re-queue does to a card: its embedding state goes, the card stays as it was. */
  const forget = (slug: string) => brain().admin.query(`DELETE FROM homelab.embedding_state WHERE topic_id = (SELECT id FROM homelab.topics WHERE slug = $1)`, [slug]);

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: { 'nomic-embed-text:latest': 768 } });
    embedder = new OllamaEmbedder({ url: ollama.url, batchSize: 8, timeoutMs: 2_000 });
    homelab = await contextFor(brain(), 'homelab');
    for (const s of ['a', 'b', 'c']) await createTopic(homelab, { slug: `quiet/${s}`, kind: 'environment', title: `Quiet ${s}`, body: `Card ${s} of the quiet worker test.` });
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  afterAll(async () => {
    await ollama.close();
  });

  it('pendingSince sees a card written after the mark, not one written before it and embedded', async () => {
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20 });
    await worker.drain();
    await worker.stop();
    const since = await quietLookStart(homelab.db);
    // The mark lies QUIET_LOOK_SLACK back: the cards above were written within it, and are embedded.
    expect(await pendingSince(homelab.db, 'homelab', model, since)).toBe(false);
    await createTopic(homelab, { slug: 'quiet/late', kind: 'environment', title: 'Late card', body: 'Written after the mark.' });
    expect(await pendingSince(homelab.db, 'homelab', model, since)).toBe(true);
    // Another model has nothing embedded at all: every changed card is pending for it.
    expect(await pendingSince(homelab.db, 'homelab', { model: 'other-model', dims: 768 }, since)).toBe(true);
    // A mark after every write: nothing changed since.
    const [later] = await brain().admin.query<{ t: string }>(`SELECT (statement_timestamp() + interval '1 second')::text AS t`);
    expect(await pendingSince(homelab.db, 'homelab', { model: 'other-model', dims: 768 }, later!.t)).toBe(false);
  });

  it('a card written while the worker is quiet is embedded by its short look; a deleted embedding waits for a full look', async () => {
    // The short look reaches QUIET_LOOK_SLACK back, so the card whose embedding goes must be older
    // than that: written an hour ago (the triggers that stamp updated_at held off for it).
    await brain().admin.exec(`SET session_replication_role = replica`);
    try {
      await brain().admin.query(`UPDATE homelab.topics SET updated_at = updated_at - interval '1 hour' WHERE slug = 'quiet/a'`);
    } finally {
      await brain().admin.exec(`SET session_replication_role = origin`);
    }
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20, fullLookMs: 60_000 });
    await worker.drain();
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });

    await createTopic(homelab, { slug: 'quiet/new', kind: 'environment', title: 'New while quiet', body: 'The short look finds this card.' });
    await until('the card written while quiet to be embedded', () => embedded('quiet/new'));
    await worker.drain(); // quiet again: its full look found nothing left

    await forget('quiet/a');
    await sleep(300); // fifteen polls, every one a short look: no card changed
    expect(await embedded('quiet/a')).toBe(false);
    await worker.drain(); // asks for a full look
    expect(await embedded('quiet/a')).toBe(true);
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });
  });

  it('a full look with nothing pending counts, and reads no batch', async () => {
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20 });
    await worker.drain();
    await worker.stop();
    // pendingCards' statement (a batch read) and countPending's slices (services/search/pending.ts), as they reach the database.
    const batches = countingStatements(homelab, "SELECT 'topic' AS entity");
    const counts = countingStatements(batches.ctx, 'SELECT (SELECT count(*) FROM');
    worker = startEmbedWorker({ ctx: counts.ctx, embedder, batchSize: 8, pollMs: 20, fullLookMs: 100 });
    await until('a start and two periodic full looks', async () => counts.count() >= 3);
    expect(batches.count()).toBe(0);
    expect(worker.status()).toMatchObject({ state: 'ok', pending: 0 });
  });

  it('the periodic full look finds a deleted embedding by itself', async () => {
    worker = startEmbedWorker({ ctx: homelab, embedder, batchSize: 8, pollMs: 20, fullLookMs: 200 });
    await worker.drain();
    await forget('quiet/b');
    await until('the full look to embed the card again', () => embedded('quiet/b'));
  });
});
