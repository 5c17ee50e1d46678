// Search latency on synthetic subjects (bench/search/synthetic.ts): p50 and p95 of keyword,
// semantic and hybrid search, on the embedded brain and, given --server URL (an admin URL),
// on a real Postgres server. Semantic and hybrid use hashed bag-of-words vectors of 512
// dimensions (the offline model's size) through the real HNSW index; where pgvector is
// missing they run keyword-only, and the report says so. Also prints embedding throughput
// of each embedder. Numbers only, no assertions: speeds depend on the machine.
//
// Measured as a running brain would be: the embedded brain lives in a data directory and is
// restarted after the load (its page cache sized from its files, its tables maintained as its
// server does); then `--warmup` questions of other words are asked before the timed ones, so
// the timings are of a brain in use rather than of its first minute.
//
//   npm run build && node dist/bench/search/latency.js [--small] [--sizes 10000,100000] [--warmup N] [--server postgres://... [--server-only]] [--ollama URL]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { search, type SearchMode } from '../../services/search/search.js';
import { embeddedBenchBrain, serverBenchBrain, type BenchBrain } from './brain.js';
import { percentile } from './metrics.js';
import { generateSubject, HashedEmbedder, rng, Vocabulary } from './synthetic.js';

export interface LatencyRow {
  target: string;
  topics: number;
  episodes: number;
  mode: SearchMode;
  /** The mode search actually used (keyword where pgvector is missing). */
  modeUsed: SearchMode;
  p50: number;
  p95: number;
  loadSeconds: number;
  /** What the brain ran with (its page cache). */
  settings: string;
}

export interface ThroughputRow {
  embedder: string;
  textsPerSecond: number;
}

export interface LatencyOptions {
  small?: boolean;
  sizes?: number[];
  server?: string | undefined;
  /** Only the server (with --server): the embedded figures are measured separately. */
  serverOnly?: boolean;
  ollama?: string | undefined;
  queries?: number;
  /** Questions (of other words than the timed ones) asked first in each mode. */
  warmup?: number;
  log?: (line: string) => void;
}

export async function runLatency(opts: LatencyOptions = {}): Promise<{ rows: LatencyRow[]; throughput: ThroughputRow[] }> {
  const log = opts.log ?? console.log;
  const sizes = opts.sizes ?? (opts.small ? [300] : [10_000, 100_000]);
  const nQueries = opts.queries ?? (opts.small ? 10 : 60);
  const nWarmup = opts.warmup ?? (opts.small ? 3 : 100);
  const vocab = new Vocabulary(opts.small ? 2_000 : 30_000);
  const embedder = new HashedEmbedder(512);
  const rows: LatencyRow[] = [];
  const targets: { name: string; open: () => Promise<BenchBrain> }[] = opts.serverOnly && opts.server ? [] : [{ name: 'embedded', open: () => embeddedBenchBrain({ onDisk: true }) }];
  if (opts.server) targets.push({ name: 'server', open: () => serverBenchBrain(opts.server!) });
  for (const target of targets) {
    for (const topics of sizes) {
      const episodes = Math.round(topics / 5);
      const brain = await target.open();
      try {
        const vectors = brain.report.features.includes('vector');
        const t = performance.now();
        log(`${brain.label}: generating ${topics} topics + ${episodes} episodes${vectors ? ' with 512-d vectors' : ' (no pgvector: keyword only)'}`);
        await generateSubject(brain.admin, 'homelab', vocab, { topics, episodes, vectors: vectors ? embedder : undefined, log });
        const loadSeconds = (performance.now() - t) / 1000;
        log(`    loaded in ${loadSeconds.toFixed(1)} s`);
        const { settings, maintenanceSeconds } = await brain.restart();
        log(`    restarted: ${settings}${maintenanceSeconds > 0 ? `; maintenance after the load took ${maintenanceSeconds.toFixed(1)} s` : ''}`);
        const ctx = await brain.context('homelab');
        // Questions of 3-7 words drawn like the text: mostly common words, some rare.
        const questions = (seed: number, n: number) => {
          const r = rng(seed);
          return Array.from({ length: n }, () => vocab.sentence(r, 3 + Math.floor(r() * 5)));
        };
        const queries = questions(99, nQueries);
        const warmup = questions(1234, nWarmup);
        const status = { state: 'ok' as const, pending: 0, model: embedder.model, dims: embedder.dimensions };
        for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
          for (const q of warmup) await search(ctx, { query: q, mode }, { embedder, embedderStatus: status });
          const ms: number[] = [];
          let used: SearchMode = mode;
          for (const q of queries) {
            const s = performance.now();
            const res = await search(ctx, { query: q, mode }, { embedder, embedderStatus: status });
            ms.push(performance.now() - s);
            used = res.mode;
          }
          const row = { target: brain.label, topics, episodes, mode, modeUsed: used, p50: percentile(ms, 50), p95: percentile(ms, 95), loadSeconds, settings };
          rows.push(row);
          log(`    ${mode.padEnd(8)} p50 ${row.p50.toFixed(1)} ms  p95 ${row.p95.toFixed(1)} ms${used !== mode ? `  (ran as ${used}: no pgvector)` : ''}`);
        }
      } finally {
        await brain.close();
      }
    }
  }
  const throughput: ThroughputRow[] = [];
  const texts = Array.from({ length: opts.small ? 16 : 128 }, (_, i) => `${vocab.sentence(rng(i), 40)}.`);
  const measure = async (name: string, e: Embedder) => {
    await e.embedDocuments(texts.slice(0, 2)); // load / warm up
    const s = performance.now();
    await e.embedDocuments(texts);
    const row = { embedder: name, textsPerSecond: texts.length / ((performance.now() - s) / 1000) };
    throughput.push(row);
    log(`embedding throughput, ${name}: ${row.textsPerSecond.toFixed(1)} texts/s (~300-character texts)`);
  };
  await measure('offline use-lite-512', new OfflineEmbedder());
  await measure('hashed-bow-512 (synthetic)', embedder);
  if (opts.ollama) await measure(`ollama nomic-embed-text at ${opts.ollama}`, new OllamaEmbedder({ url: opts.ollama }));
  return { rows, throughput };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      small: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      server: { type: 'string' },
      'server-only': { type: 'boolean', default: false },
      ollama: { type: 'string' },
      queries: { type: 'string' },
      warmup: { type: 'string' },
    },
  });
  await runLatency({
    small: values.small,
    ...(values.sizes ? { sizes: values.sizes.split(',').map(Number) } : {}),
    server: values.server,
    serverOnly: values['server-only'],
    ollama: values.ollama,
    ...(values.queries ? { queries: Number(values.queries) } : {}),
    ...(values.warmup ? { warmup: Number(values.warmup) } : {}),
  });
}
