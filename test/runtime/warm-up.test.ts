// A starting server's warm-up (services/runtime/warm-up.ts): after one search of each kind, the
// first subject asks itself one question drawn from its own newest card (warm-queries.ts),
// WARM_SEARCHES times, so Postgres's code is optimised before real searches need it. Real
// embedded brain; the searches are counted by the keyword statements that reach the database. With an
// embedder, the vector index is read into the page cache between the two (db/vector-prewarm.ts).
import type { Logger } from 'pino';
import { beforeAll, expect, it } from 'vitest';
import { createTopic, recordEpisode, type BrainContext } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { WARM_SEARCHES, warmUpQuestion } from '../../services/runtime/warm-queries.js';
import { standIn, warmUp } from '../../services/runtime/warm-up.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { embedStale } from '../../services/search/index.js';
import { describeOn } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { countingStatements } from '../support/statements.js';

describeOn('pglite', 'the warm-up', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    for (const [slug, title] of [['svc/nas', 'NAS backups'], ['svc/dns', 'Pi-hole DNS'], ['svc/mqtt', 'MQTT broker']]) {
      await createTopic(homelab, { slug: slug!, kind: 'tool', title: title!, body: `${title} notes.` });
    }
    await recordEpisode(homelab, { kind: 'note', occurredAt: '2026-11-01', title: 'Rotated keys', summary: 'Rotated the restic repository keys after the disk swap on the NAS' });
    await recordEpisode(homelab, { kind: 'note', occurredAt: '2026-11-02', title: 'Router reboot: firmware 7.2 applied' });
  }, 60_000);

  it("draws its question from the newest topic's title, else the first words of the newest episode", async () => {
    expect(WARM_SEARCHES).toBeGreaterThanOrEqual(10);
    expect(await warmUpQuestion(homelab)).toBe('MQTT broker');
    const book = await contextFor(brain(), 'book');
    await recordEpisode(book, { kind: 'note', occurredAt: '2026-11-03', title: 'Outline', summary: 'Moved the second chapter ahead of the first one' });
    expect(await warmUpQuestion(book)).toBe('Moved the second chapter ahead');
    expect(await warmUpQuestion(await contextFor(brain(), 'novel'))).toBeUndefined();
  });

  it('asks its question WARM_SEARCHES times after the first searches, and says so', async () => {
    const counted = countingStatements(homelab, 'ts_rank_cd');
    const lines: { msg: string; obj: Record<string, unknown> }[] = [];
    const logger = { info: (obj: Record<string, unknown>, msg: string) => lines.push({ msg, obj }), warn: () => undefined } as unknown as Logger;
    const server = { ctx: counted.ctx, subject: homelab.subject } as unknown as RunningSubjectServer;
    const { done, status } = warmUp([server], { embedder: undefined, reason: 'none in this test' }, logger, 0, brain().embedded);
    await done;
    expect(status.state).toBe('ready');
    // No embedder, no vector search: its index is not read ahead.
    expect(lines.filter((l) => l.msg === 'read the vector index into the page cache')).toHaveLength(0);
    const warmed = lines.filter((l) => l.msg === 'warmed the search code');
    expect(warmed).toHaveLength(1);
    expect(warmed[0]!.obj).toMatchObject({ searches: WARM_SEARCHES, failed: 0 });
    // The first keyword search ("warm up"), then the question, WARM_SEARCHES times.
    expect(counted.count()).toBe(1 + WARM_SEARCHES);
  });

  it('with an embedder, searches hybrid without counting the pending cards (a read of every card)', async () => {
    const embedder: Embedder = standIn({ model: 'warm-stub', dimensions: 384 } as Embedder);
    const pendingCounts = countingStatements(homelab, 'SELECT (SELECT count(*) FROM ');
    const vectorReads = countingStatements(pendingCounts.ctx, 'OPERATOR(brain_ext.<=>)');
    const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
    const server = { ctx: vectorReads.ctx, subject: homelab.subject } as unknown as RunningSubjectServer;
    const { done, status } = warmUp([server], { embedder, reason: 'a stand-in in this test' }, logger, 0);
    await done;
    expect(status.state).toBe('ready');
    // The vector side ran: the first hybrid search ("warm up"), then the question WARM_SEARCHES times.
    expect(vectorReads.count()).toBeGreaterThanOrEqual(1 + WARM_SEARCHES);
    expect(pendingCounts.count()).toBe(0);
  });

  it('with an embedder, reads the subject’s vector index at its dimensions into the page cache, and says how much', async () => {
    const vector = (text: string) => Array.from({ length: 768 }, (_, i) => Math.sin((text.length + 1) * (i + 1)));
    const embedder: Embedder = { model: 'warm-768', dimensions: 768, embedDocuments: async (t) => t.map(vector), embedQuery: async (t) => vector(t), health: async () => ({ ok: true }) };
    expect(await embedStale(homelab, embedder)).toMatchObject({ pending: 0 });
    const lines: { msg: string; obj: Record<string, unknown> }[] = [];
    const logger = { info: (obj: Record<string, unknown>, msg: string) => lines.push({ msg, obj }), warn: (obj: Record<string, unknown>, msg: string) => lines.push({ msg, obj }) } as unknown as Logger;
    const server = { ctx: homelab, subject: homelab.subject } as unknown as RunningSubjectServer;
    const { done } = warmUp([server], { embedder, reason: 'a stub in this test' }, logger, 0, brain().embedded);
    await done;
    const read = lines.filter((l) => l.msg === 'read the vector index into the page cache');
    expect(read).toHaveLength(1);
    const sizes = await brain().admin.query<{ n: number }>(`SELECT (pg_relation_size('homelab.chunks_hnsw_768') / 8192)::int AS n`);
    const n = sizes[0]!.n;
    expect(n).toBeGreaterThan(1);
    expect(read[0]!.obj).toMatchObject({ pages: n, of: n });
    // Read before the question's searches, which then find the pages in the cache.
    expect(lines.map((l) => l.msg).indexOf('read the vector index into the page cache')).toBeLessThan(lines.map((l) => l.msg).indexOf('warmed the search code'));
  });
});
