// The offline model's threads (services/embeddings/model-pool.ts): a helper with its own model
// while a backlog waits, released when the backlog is gone; the last thread released when
// idle and started again by the next search; vectors the same however the texts were sorted,
// packed and shared between threads.
import { describe, expect, it, vi } from 'vitest';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';

/**
 * The largest difference between two lists of vectors. Packed differently, a text's vector may
 * differ in the last bit of a float32 (about 1e-8): the same vector for search.
 */
const apart = (a: number[][], b: number[][]) => Math.max(...a.map((v, i) => Math.max(...v.map((x, j) => Math.abs(x - b[i]![j]!)))));

/** Texts of very different lengths, so sorting and packing move them around. */
const texts = Array.from({ length: 120 }, (_, i) => `Card ${i}: ${'the NAS takes nightly restic snapshots and keeps thirty of them. '.repeat(1 + (i % 7) * 3)}`.trim());

describe('the offline model pool', () => {
  it('gives the same vectors with two threads as with one, in the order asked', { timeout: 300_000 }, async () => {
    const one = new OfflineEmbedder({ threads: 1 });
    const two = new OfflineEmbedder({ threads: 2 });
    try {
      const a = await one.embedDocuments(texts);
      let most = 0;
      const watching = setInterval(() => (most = Math.max(most, two.threads)), 5);
      const b = await two.embedDocuments(texts);
      clearInterval(watching);
      expect(most).toBe(2); // the helper took part
      expect(b).toHaveLength(a.length);
      expect(apart(a, b)).toBeLessThan(1e-6);
      // And each is the text's own vector, as a query alone gets it.
      for (const i of [0, 6, 59, 119]) expect(apart([await one.embedQuery(texts[i]!)], [a[i]!])).toBeLessThan(1e-6);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('releases the helper once the backlog is done, and the last thread when idle; the next search starts one again', { timeout: 300_000 }, async () => {
    const e = new OfflineEmbedder({ threads: 2, helperIdleMs: 200, idleMs: 1_500 });
    try {
      await e.embedDocuments(texts);
      await vi.waitFor(() => expect(e.threads).toBe(1), { timeout: 60_000, interval: 50 });
      await vi.waitFor(() => expect(e.threads).toBe(0), { timeout: 60_000, interval: 50 });
      expect(e.running).toBe(false);
      const v = await e.embedQuery('when do backups run?');
      expect(v).toHaveLength(512);
      expect(e.threads).toBe(1);
    } finally {
      await e.close();
    }
  });

  it('starts no helper for a few texts', async () => {
    const e = new OfflineEmbedder({ threads: 2 });
    try {
      await e.embedDocuments(texts.slice(0, 40));
      expect(e.threads).toBe(1);
    } finally {
      await e.close();
    }
  });

  it('drops the work of an aborted call, and serves the next one', { timeout: 300_000 }, async () => {
    const e = new OfflineEmbedder({ threads: 1 });
    try {
      await e.load();
      const stop = new AbortController();
      const aborted = e.embedDocuments(texts, { signal: stop.signal });
      stop.abort(new Error('the worker stopped'));
      await expect(aborted).rejects.toThrow('the worker stopped');
      const [v] = await e.embedDocuments([texts[3]!]);
      expect(apart([v!], [await e.embedQuery(texts[3]!)])).toBeLessThan(1e-6);
    } finally {
      await e.close();
    }
  });
});
