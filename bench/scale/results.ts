// Every figure one size of the scale bench measures (written whole with --json).
import { percentile } from '../search/metrics.js';
import type { CorpusStats } from './corpus.js';
import type { DiskUse, RelationSize } from './disk.js';
import type { SearchTiming } from './mcp.js';

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Percentiles of the finite values (a line the product no longer prints is NaN, and left out). */
export function summarize(values: readonly number[]): Summary {
  const ms = values.filter(Number.isFinite);
  return { n: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99), max: ms.length ? Math.max(...ms) : NaN };
}

export interface EmbedRun {
  embedder: string;
  /** Wall time the server ran, spawn to stop. */
  seconds: number;
  /** Cards (topics and episodes) embedded and chunks written, from the worker's log lines. */
  cards: number;
  chunks: number;
  /** Over the batches after the first (the first carries the model's load and the first count). */
  cardsPerSecond: number;
  chunksPerSecond: number;
  /** How the rate was taken: the worker's "embedded cards" log lines, or /readyz's pending counts. */
  source: 'logs' | 'readyz';
  pendingAtStart: number;
  pendingAtEnd: number;
  /** Nothing pending when it stopped (else it stopped at its time limit). */
  complete: boolean;
  /** Spawn to nothing pending, when complete. */
  drainSeconds?: number;
  peakRssMb: number;
  /** The embedder's state in /readyz at the last poll (ok, degraded, off). */
  state: string;
}

export interface StartRun {
  embedder: string;
  /** Spawn to the `serving "homelab"` line. */
  listening: number[];
  /** Spawn to the first /healthz answered. */
  healthy: number[];
  /** Spawn to MCP initialize answered (sent as soon as /healthz answers). */
  initialize: number[];
  /** Spawn to the first tool call answered (`list`, which needs the database open). */
  firstTool: number[];
  /** Spawn to the "The brain is open" line. */
  openLine: number[];
  /** RSS after `idleSeconds` with no request, first start. */
  idleRssMb: number;
  idleSeconds: number;
  /** The first start ran with BRAIN_EMBEDDED_IDLE_MINUTES of this many seconds: its RSS once asleep (PGlite closed), and its next tool call (which wakes it). */
  sleepSeconds?: number;
  asleepRssMb?: number;
  wakeToolMs?: number;
}

export interface SizeResult {
  pages: number;
  seed: number;
  loadBefore: string;
  loadAfter: string;
  corpus: CorpusStats;
  generateSeconds: number;
  importRun: {
    seconds: number;
    peakRssMb: number;
    /** What the import reports of itself (--json): its own time and phases. */
    reportSeconds?: number;
    timings?: Record<string, number>;
    pagesStored?: number;
    linksStored?: number;
    episodes?: number;
    ok: boolean;
    load: string;
  };
  diskAfterImport: DiskUse;
  relations?: { relations: RelationSize[]; databaseBytes: number };
  embedFake?: EmbedRun;
  diskAfterEmbeddings?: DiskUse;
  starts: StartRun[];
  searches: SearchTiming[];
  /** What each mode's server ran with (its embedder, and whether every card had its vector). */
  searchContext: Record<string, string>;
  /** RSS of each search server after its cold and warm passes. */
  rssAfterSearches: Record<string, number>;
  cli: { searchStopped: number[]; queryStopped: number[]; searchRunning: number[] };
  embedOffline?: EmbedRun;
  failures: string[];
}

/** The offline embedder over a whole small backlog (backlog.ts). */
export interface BacklogResult {
  pages: number;
  seed: number;
  /** Topic cards the import made (one per page) and timeline lines (one episode each). */
  topics: number;
  timelineLines: number;
  run: EmbedRun;
  /** Cards over spawn to nothing pending (model load and start included); NaN when it stopped at its limit. */
  wholeCardsPerSecond: number;
  loadBefore: string;
  loadAfter: string;
}
