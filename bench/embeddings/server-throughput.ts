// Embedding throughput side by side: the embedder alone (texts/s on the backlog's own chunks)
// and the embedding worker in a real server process (cards/s from all pending to none), for
// the offline embedder and a fake Ollama (test/support/fake-ollama.ts: its vectors cost next to
// nothing, so its cards/s is what the database and the worker cost on their own). The backlog is
// GBrain-style pages imported into an embedded brain (bench/embeddings/backlog.ts): `--corpus
// scale` takes issue 17's scale corpus (bench/scale/corpus.ts) instead of the GBrain generator's.
//
// --brain takes several builds (paths to a brain.js, comma-separated; default this one): each
// round runs every build once, alternating, so a before/after comparison shares the machine's
// load. Numbers only: they depend on the machine and its load.
//
//   npm run build && node dist/bench/embeddings/server-throughput.js [--pages 300] [--corpus gbrain|scale] [--rounds 2]
//       [--embedders offline,ollama] [--brain dist/cli/brain.js,OTHER/dist/cli/brain.js] [--alone-texts 400]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Chunk, CardText as ChunkerCard, ChunkOptions } from '../../services/embeddings/chunker.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { startFakeOllama } from '../../test/support/fake-ollama.js';
import { prepareBacklog, type BacklogCards, type BacklogCorpus } from './backlog.js';
import { runServer, type ServerRun } from './server-run.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '300' },
    corpus: { type: 'string', default: 'gbrain' },
    rounds: { type: 'string', default: '2' },
    embedders: { type: 'string', default: 'offline,ollama' },
    brain: { type: 'string', default: 'dist/cli/brain.js' },
    'alone-texts': { type: 'string', default: '400' },
    port: { type: 'string', default: '18902' },
  },
});
const builds = values.brain.split(',').map((p) => resolve(p));
const embedders = values.embedders.split(',').filter(Boolean) as ('offline' | 'ollama')[];
const rounds = Number(values.rounds);
if (values.corpus !== 'gbrain' && values.corpus !== 'scale') throw new Error(`--corpus must be gbrain or scale, got ${values.corpus}`);
const corpus: BacklogCorpus = values.corpus;
const port = Number(values.port);
const loadNow = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The package root of a build: dist/cli/brain.js → its two levels up. */
const rootOf = (brainJs: string) => dirname(dirname(dirname(brainJs)));
const label = (brainJs: string) => (builds.length === 1 ? 'this build' : rootOf(brainJs));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface BuildModules {
  chunkCard(card: ChunkerCard, options?: ChunkOptions): Chunk[];
  CHUNK_OPTIONS: ChunkOptions;
  OfflineEmbedder: new (options?: { threads?: number }) => Embedder & { load(): Promise<void>; close(): Promise<void> };
}

async function modulesOf(brainJs: string): Promise<BuildModules> {
  const dist = join(rootOf(brainJs), 'dist');
  const at = (p: string) => import(pathToFileURL(join(dist, p)).href);
  const [chunker, cards, offline] = await Promise.all([at('services/embeddings/chunker.js'), at('services/search/embed-cards.js'), at('services/embeddings/offline.js')]);
  return { chunkCard: chunker.chunkCard, CHUNK_OPTIONS: cards.CHUNK_OPTIONS, OfflineEmbedder: offline.OfflineEmbedder };
}

function chunkStats(m: BuildModules, cards: BacklogCards): string {
  const per = (rows: ChunkerCard[]) => rows.map((c) => m.chunkCard(c, m.CHUNK_OPTIONS));
  const t = per(cards.topics);
  const e = per(cards.episodes);
  const n = (xs: Chunk[][]) => xs.reduce((s, c) => s + c.length, 0);
  const chars = [...t, ...e].flat().map((c) => c.text.length);
  return (
    `topics ${t.length}: ${(n(t) / t.length).toFixed(2)} chunks each; episodes ${e.length}: ${(n(e) / e.length).toFixed(2)} each; ` +
    `${((n(t) + n(e)) / (t.length + e.length)).toFixed(2)} chunks per card, ${median(chars)} characters per chunk (median)`
  );
}

/** texts/s and CPU ms per text of `embedder` over `texts`, called as the worker calls it: 64 texts a call, two calls in flight. */
async function alone(embedder: Embedder, texts: string[]): Promise<string> {
  await embedder.embedDocuments(texts.slice(0, 4));
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const calls: Promise<number[][]>[] = [];
  for (let i = 0; i < texts.length; i += 64) {
    calls.push(embedder.embedDocuments(texts.slice(i, i + 64)));
    if (calls.length >= 2) await calls.at(-2);
  }
  await Promise.all(calls);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  return `${((texts.length * 1000) / ms).toFixed(1)} texts/s, ${((cpu.user + cpu.system) / 1000 / texts.length).toFixed(1)} ms CPU per text`;
}

const dir = mkdtempSync(join(tmpdir(), 'brain-bench-embed-'));
try {
  log(`preparing ${values.pages} GBrain pages (${corpus} corpus) in an embedded brain…`);
  const { backlog, cards } = await prepareBacklog(dir, Number(values.pages), port, builds[0]!, corpus);
  const fake = await startFakeOllama();
  const modules = new Map<string, BuildModules>();
  for (const b of builds) modules.set(b, await modulesOf(b));

  console.log(`# Embedding throughput, ${new Date().toISOString()}, load average at start ${loadNow()}`);
  console.log(`backlog: ${values.pages} GBrain pages (${corpus} corpus) = ${cards.topics.length} topics + ${cards.episodes.length} episodes = ${cards.topics.length + cards.episodes.length} cards`);
  for (const b of builds) console.log(`chunks (${label(b)}): ${chunkStats(modules.get(b)!, cards)}`);

  const first = modules.get(builds[0]!)!;
  const texts = [...cards.topics, ...cards.episodes].flatMap((c) => first.chunkCard(c, first.CHUNK_OPTIONS).map((x) => x.text)).slice(0, Number(values['alone-texts']));
  console.log(`\n## The embedder alone, on the first ${texts.length} chunks of the backlog`);
  for (let r = 0; r < rounds; r++) {
    for (const b of builds) {
      // The build's default, and (where the build has the option) one model thread.
      for (const opts of [{}, { threads: 1 }]) {
        const offline = new (modules.get(b)!.OfflineEmbedder)(opts);
        if (opts.threads && !('threads' in offline)) continue;
        await offline.load();
        const threads = opts.threads ? ', 1 thread' : '';
        console.log(`offline (${label(b)}${threads}): ${await alone(offline, texts)}; load ${loadNow()}`);
        await offline.close();
      }
    }
  }
  console.log(`fake Ollama over HTTP: ${await alone(new OllamaEmbedder({ url: fake.url }), texts)}`);

  console.log(`\n## The worker in a real server (brain serve --subject homelab), all pending to none`);
  const runs = new Map<string, ServerRun[]>();
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    for (const e of embedders) {
      for (const b of builds) {
        const env: Record<string, string> = e === 'offline' ? { BRAIN_EMBEDDER: 'offline' } : { BRAIN_EMBEDDER: 'ollama', OLLAMA_URL: fake.url };
        const run = await runServer(b, backlog, join(dir, `run-${n++}`), env);
        rmSync(join(dir, `run-${n - 1}`), { recursive: true, force: true });
        const key = `${e} | ${label(b)}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        console.log(
          `${key}: ${run.cards} cards in ${run.seconds.toFixed(1)} s = ${(run.cards / run.seconds).toFixed(1)} cards/s ` +
            `(steady ${run.steadyCardsPerSecond.toFixed(1)}); CPU main ${run.cpuMain.toFixed(1)} s, other threads ${run.cpuOther.toFixed(1)} s; ` +
            `RSS peak ${run.peakRssMb.toFixed(0)} MB, idle ${run.idleRssMb.toFixed(0)} MB; load up to ${run.load.toFixed(2)}`,
        );
      }
    }
  }
  console.log('\n| embedder | build | runs | cards/s (median) | CPU ms per card, main / other threads | peak RSS MB |');
  console.log('|---|---|---|---|---|---|');
  for (const [key, rs] of runs) {
    const cps = median(rs.map((x) => x.cards / x.seconds));
    const main = median(rs.map((x) => (x.cpuMain * 1000) / x.cards));
    const other = median(rs.map((x) => (x.cpuOther * 1000) / x.cards));
    console.log(`| ${key.replace(' | ', ' | ')} | ${rs.length} | ${cps.toFixed(1)} | ${main.toFixed(0)} / ${other.toFixed(0)} | ${median(rs.map((x) => x.peakRssMb)).toFixed(0)} |`);
  }
  console.log(`load average at the end ${loadNow()}`);
  await fake.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
