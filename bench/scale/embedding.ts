// Embedding throughput in the server, as a user gets it: `brain serve` runs with an embedder
// and its worker embeds what the import left pending (every topic and every episode) while
// nobody calls it. The rate comes from the worker's own "embedded cards" log lines (cards and
// chunks per batch, with pino's timestamps); /readyz's pending count (the embedder part of the
// readiness answer) says when nothing is left, and is the fallback if the log says nothing.
import type { EmbedRun } from './results.js';
import { startServer } from './processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Batch {
  at: number;
  embedded: number;
  chunks: number;
}

async function pendingOf(baseUrl: string): Promise<{ pending: number; state: string } | undefined> {
  try {
    const r = await fetch(`${baseUrl}/readyz`);
    const body = (await r.json()) as { embedder?: { pending?: number; state?: string } };
    if (body.embedder?.pending === undefined) return undefined;
    return { pending: body.embedder.pending, state: body.embedder.state ?? '?' };
  } catch {
    return undefined;
  }
}

export async function measureEmbedding(
  env: NodeJS.ProcessEnv,
  subject: string,
  baseUrl: string,
  opts: { label: string; capSeconds: number; pollMs?: number; log: (line: string) => void },
): Promise<EmbedRun> {
  const spawnedAt = Date.now();
  const server = startServer({ ...env, BRAIN_LOG_LEVEL: 'info' }, subject, baseUrl);
  const batches: Batch[] = [];
  server.onLine((line) => {
    if (!line.includes('embedded cards')) return;
    try {
      const j = JSON.parse(line) as { time?: number; embedded?: number; chunks?: number };
      if (typeof j.embedded === 'number') batches.push({ at: j.time ?? Date.now(), embedded: j.embedded, chunks: j.chunks ?? 0 });
    } catch {
      // not a JSON log line
    }
  });
  let peak = 0;
  let pendingAtStart = 0;
  let firstSeen: { at: number; pending: number } | undefined;
  let last: { at: number; pending: number } | undefined;
  let complete = false;
  let drainSeconds: number | undefined;
  let batchesAtLastPoll = -1;
  let lastState = '?';
  try {
    await server.healthy;
    const capAt = server.started + opts.capSeconds * 1000;
    let nextNote = performance.now() + 30_000;
    for (;;) {
      await sleep(opts.pollMs ?? 3_000);
      const m = server.memory();
      if (m) peak = Math.max(peak, m.hwmMb);
      const p = await pendingOf(baseUrl);
      if (p) {
        const now = { at: Date.now(), pending: p.pending };
        if (!firstSeen && p.pending > 0) firstSeen = now;
        pendingAtStart = Math.max(pendingAtStart, p.pending);
        last = now;
        // Before the worker's first count the status says 0 pending, and between real counts it is
        // an estimate that can reach 0 early: done once work was seen (or none came for a while)
        // and no batch was logged since the last poll.
        const worked = batches.length > 0 || firstSeen !== undefined;
        const quiet = batches.length === batchesAtLastPoll;
        batchesAtLastPoll = batches.length;
        lastState = p.state;
        if (p.pending === 0 && quiet && (worked || performance.now() - server.started > 20_000)) {
          complete = true;
          // To the last batch's log line (the poll that saw it done came up to two polls later).
          drainSeconds = ((batches.at(-1)?.at ?? Date.now()) - spawnedAt) / 1000;
          break;
        }
      }
      if (performance.now() >= capAt) break;
      if (performance.now() >= nextNote) {
        nextNote += 30_000;
        const done = batches.reduce((s, b) => s + b.embedded, 0);
        opts.log(`    ${opts.label}: ${done.toLocaleString('en')} cards embedded, ${last?.pending.toLocaleString('en') ?? '?'} pending, ${Math.round((performance.now() - server.started) / 1000)} s`);
      }
    }
  } finally {
    await server.stop();
  }
  const seconds = (performance.now() - server.started) / 1000;
  const cards = batches.reduce((s, b) => s + b.embedded, 0);
  const chunks = batches.reduce((s, b) => s + b.chunks, 0);
  let cardsPerSecond = 0;
  let chunksPerSecond = 0;
  let source: EmbedRun['source'] = 'logs';
  if (batches.length >= 2) {
    const span = (batches.at(-1)!.at - batches[0]!.at) / 1000;
    const after = batches.slice(1);
    cardsPerSecond = after.reduce((s, b) => s + b.embedded, 0) / span;
    chunksPerSecond = after.reduce((s, b) => s + b.chunks, 0) / span;
  } else if (firstSeen && last && last.at > firstSeen.at) {
    source = 'readyz';
    cardsPerSecond = (firstSeen.pending - last.pending) / ((last.at - firstSeen.at) / 1000);
  }
  return {
    embedder: opts.label,
    seconds,
    cards,
    chunks,
    cardsPerSecond,
    chunksPerSecond,
    source,
    pendingAtStart,
    pendingAtEnd: last?.pending ?? NaN,
    complete,
    ...(drainSeconds !== undefined ? { drainSeconds } : {}),
    peakRssMb: peak,
    state: lastState,
  };
}
