// The offline embedder over a whole backlog, as the server meets one after an import: a small
// corpus of the same generator (its own seed) imported with no embedder, then `brain serve` with
// BRAIN_EMBEDDER=offline until nothing is pending. The size runs' offline figure is of the
// first minutes of a 71k-card backlog, and the worker takes topics first, so it is a rate of
// pages (3-4 chunks each); a whole backlog is a rate of the card mix the import leaves (a topic
// per page and an episode per timeline line), which is what "cards/s" counts.
import { join } from 'node:path';
import { prepareBenchHome, SUBJECT } from './brain-home.js';
import { generateCorpus } from './corpus.js';
import { measureEmbedding } from './embedding.js';
import { loadAverage, runBrain } from './processes.js';
import type { BacklogResult } from './results.js';

export async function measureOfflineBacklog(o: { workDir: string; pages: number; seed: number; capSeconds: number; log: (line: string) => void }): Promise<BacklogResult> {
  const { log } = o;
  const { baseUrl, env } = await prepareBenchHome(o.workDir);
  const { stats } = generateCorpus(join(o.workDir, 'corpus'), { pages: o.pages, seed: o.seed });
  const none = { ...env, BRAIN_EMBEDDER: 'none' };
  for (const args of [['init'], ['import', join(o.workDir, 'corpus'), '--subject', SUBJECT, '--quiet']]) {
    const r = await runBrain(args, none);
    if (r.code !== 0) throw new Error(`brain ${args[0]} exited ${r.code}: ${r.stderr.slice(-500)}`);
  }
  log(`[backlog ${o.pages}] offline embedder in the server until nothing is pending (at most ${o.capSeconds} s), load ${loadAverage()}`);
  const loadBefore = loadAverage();
  const run = await measureEmbedding({ ...env, BRAIN_EMBEDDER: 'offline' }, SUBJECT, baseUrl, { label: 'offline backlog', capSeconds: o.capSeconds, log });
  const wholeCardsPerSecond = run.complete && run.drainSeconds ? run.cards / run.drainSeconds : NaN;
  log(`    ${run.cards} cards (${run.chunks} chunks): ${run.complete ? `nothing pending after ${run.drainSeconds?.toFixed(0)} s, ${wholeCardsPerSecond.toFixed(1)} cards/s from spawn` : 'stopped at the limit'}; ${run.cardsPerSecond.toFixed(1)} cards/s after the first batch`);
  return { pages: o.pages, seed: o.seed, topics: stats.pages, timelineLines: stats.timelineLines, run, wholeCardsPerSecond, loadBefore, loadAfter: loadAverage() };
}
