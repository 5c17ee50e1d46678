// Embedding throughput on this machine: how long the offline model takes to load, texts per
// second and milliseconds per batch; the same for Ollama when a URL is given. It only prints
// numbers: nothing here asserts a speed, because speeds depend on the machine.
//
//   npx tsc -p bench/embeddings/tsconfig.json
//   node dist/bench/embeddings/throughput.js [--n 200] [--chars 300] [--batch 16] [--ollama URL] [--model nomic-embed-text]
import { parseArgs } from 'node:util';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { inBatches } from '../../services/embeddings/embedder.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200' },
    chars: { type: 'string', default: '300' },
    batch: { type: 'string' },
    ollama: { type: 'string' },
    model: { type: 'string', default: 'nomic-embed-text' },
  },
});

const n = positive('n', values.n);
const chars = positive('chars', values.chars);
const batch = values.batch === undefined ? undefined : positive('batch', values.batch);

function positive(name: string, raw: string): number {
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`--${name} must be a positive integer, got ${raw}`);
    process.exit(2);
  }
  return v;
}

/** Deterministic card-like prose: a fixed word list cycled with a stride, so runs are comparable. */
function sampleTexts(count: number, length: number): string[] {
  const vocab = (
    'the database backup runs every night and writes a compressed snapshot to the archive disk ' +
    'restore it with pg_restore after checking the checksum; the schedule lives in cron and alerts go to the on-call ' +
    'sourdough needs a lively starter flour water salt and a long cold proof before baking in a hot oven ' +
    'rotate certificates before they expire and reload the proxy so clients never see an error'
  ).split(' ');
  return Array.from({ length: count }, (_, i) => {
    const words: string[] = [`Card ${i}:`];
    for (let k = 0; words.join(' ').length < length; k++) words.push(vocab[(i * 7 + k * 13) % vocab.length]!);
    return words.join(' ').slice(0, length);
  });
}

async function measure(label: string, embedder: Embedder, texts: string[], batchSize: number): Promise<void> {
  const batchMs: number[] = [];
  const started = performance.now();
  for (const group of inBatches(texts, batchSize)) {
    const t = performance.now();
    await embedder.embedDocuments(group);
    batchMs.push(performance.now() - t);
  }
  const totalMs = performance.now() - started;
  const sorted = [...batchMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `${label}: ${texts.length} texts of ~${chars} chars in ${(totalMs / 1000).toFixed(2)} s = ` +
      `${((texts.length * 1000) / totalMs).toFixed(1)} texts/s; ` +
      `per batch of ${batchSize}: first ${batchMs[0]!.toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`,
  );
  const t = performance.now();
  await embedder.embedQuery('how often is the database backed up');
  console.log(`${label}: one query ${(performance.now() - t).toFixed(0)} ms`);
}

const texts = sampleTexts(n, chars);

const offline = new OfflineEmbedder(batch === undefined ? {} : { batchSize: batch });
await offline.load();
console.log(`offline (${offline.model}): model loaded in ${offline.loadMs!.toFixed(0)} ms`);
await measure(`offline (${offline.model})`, offline, texts, offline.batchSize);

if (values.ollama) {
  const ollama = new OllamaEmbedder({ url: values.ollama, model: values.model, ...(batch === undefined ? {} : { batchSize: batch }) });
  const health = await ollama.health();
  if (!health.ok) {
    console.log(`ollama (${ollama.model}): skipped, ${health.reason}`);
  } else {
    // The first request may load the model into memory; time it apart from the steady state.
    const t = performance.now();
    await ollama.embedQuery('warm up');
    console.log(`ollama (${ollama.model}): first request (model load) ${(performance.now() - t).toFixed(0)} ms`);
    await measure(`ollama (${ollama.model})`, ollama, texts, ollama.batchSize);
  }
}
