// The embedded brain keeps answering while its embedding worker has work: `brain up` with
// the offline embedder, a 10 MB card (written by SQL: the tools refuse one) and a few hundred
// ordinary cards pending. Before the model had its own thread, one batch held the event loop
// for seconds, so /healthz, every subject and SIGTERM waited for it.
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { runBrain } from '../support/cli.js';
import { connectClient, text } from '../support/mcp.js';
import { scratchBrain, startBrainProcess, stopBrainProcess, type ScratchBrain } from '../support/processes.js';

async function timedGet(url: string): Promise<{ ms: number; status: number; body: unknown }> {
  const started = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const body = await res.json();
  return { ms: performance.now() - started, status: res.status, body };
}

describe('[pglite] brain up answers while the embedding worker has work', () => {
  let brain: ScratchBrain;
  let home: string;
  let env: Record<string, string>;
  let ports: number[];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    brain = scratchBrain('worker', ['personal', 'homelab'], { BRAIN_EMBEDDER: 'offline', BRAIN_LOG_LEVEL: 'info' });
    ({ home, env, ports } = brain);
    expect(runBrain(['init'], env).code).toBe(0);
    const db = await EmbeddedDatabase.open(join(home, 'data'));
    await db.pg.query(`INSERT INTO homelab.topics (slug, kind, title, body) VALUES ('env/huge', 'environment', 'A 10 MB card', $1)`, [
      'The storage array hums along in the rack; its disks spin all night. '.repeat(150_000),
    ]);
    await db.pg.query(
      `INSERT INTO homelab.topics (slug, kind, title, body)
       SELECT 'env/card-' || i, 'environment', 'Card ' || i, repeat('Service ' || i || ' runs on host alpha and is backed up nightly. ', 50)
         FROM generate_series(1, 300) AS i`,
    );
    await db.close();
  }, 300_000);

  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    brain.remove();
  });

  it('answers /healthz and serves searches throughout, none waiting for a batch, then stops on SIGTERM', { timeout: 400_000 }, async () => {
    const proc = await startBrainProcess(['up'], env, /The brain is open/);
    children.push(proc.child);
    const base = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const client = await connectClient(`${base(1)}/mcp`);

    const health: number[] = [];
    const searches: string[] = [];
    const pendingSeen: number[] = [];
    // At least 25 s, and until batches have been written too (the part that runs in this
    // thread: each card's vectors go into the HNSW index), at most 150 s on a loaded machine.
    const started = Date.now();
    // The worker's log line for each batch written, which also says when it was written.
    const batchLines = () => proc.output().match(/^\{.*"msg":"embedded cards".*$/gm) ?? [];
    const written = () => batchLines().length >= 2;
    let round = 0;
    while (Date.now() - started < 25_000 || (!written() && Date.now() - started < 150_000)) {
      const [a, b] = await Promise.all([timedGet(`${base(0)}/healthz`), timedGet(`${base(1)}/healthz`)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      health.push(a.ms, b.ms);
      if (round % 20 === 0) {
        const ready = await timedGet(`${base(1)}/readyz`);
        pendingSeen.push((ready.body as { embedder?: { pending?: number } }).embedder?.pending ?? -1);
        const r = await client.callTool({ name: 'search', arguments: { query: 'which host runs service 7?' } });
        expect(r.isError).toBeFalsy();
        searches.push(text(r));
      }
      round++;
      await new Promise((r) => setTimeout(r, 100));
    }
    await client.close();

    // The worker was busy the whole time: cards were pending at the end as at the start.
    expect(pendingSeen.length).toBeGreaterThan(3);
    expect(pendingSeen.at(-1), `pending at each check: ${pendingSeen.join(", ")}`).toBeGreaterThan(0);
    expect(written(), 'two batches written during the checks').toBe(true);
    expect(health.length).toBeGreaterThan(60);
    // No answer waited for a batch: the slowest is well under the time between two batches
    // written (a model computing on this thread held every answer for most of a batch). The
    // bound is the run's own, not a number of milliseconds: on a loaded machine both grow.
    // How this thread stays free is checked where it can be without a clock: the model's own
    // thread in test/embeddings/offline.test.ts, the HNSW inserts a few rows per statement
    // with a turn of the event loop between in test/search/embed-limits.test.ts.
    const batchTimes = batchLines().map((line) => (JSON.parse(line) as { time: number }).time);
    expect(batchTimes.length).toBeGreaterThanOrEqual(2);
    const shortestBatch = Math.min(...batchTimes.slice(1).map((t, i) => t - batchTimes[i]!));
    const sorted = [...health].sort((a, b) => a - b);
    expect(sorted.at(-1), `slowest answers (ms): ${sorted.slice(-5).map((x) => x.toFixed(0)).join(', ')}; batches ${shortestBatch} ms apart at least`).toBeLessThan(shortestBatch / 2);
    expect(searches.length).toBeGreaterThan(3);
    for (const s of searches) expect(s).toContain('homelab:env/card-');

    const stopped = await stopBrainProcess(proc.child);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
  });
});
