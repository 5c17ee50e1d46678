// One size of the scale bench, start to end, in its own BRAIN_HOME: generate the corpus, init,
// import (timed, its peak RSS sampled), disk, embeddings with the fake Ollama, server starts,
// searches over MCP (cold, then warm) per mode, one-shot CLI searches, the offline embedder.
// Every step is a `brain` process, as a user runs it (processes.ts); a step that fails is
// recorded in `failures` and the run goes on where it can.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareBenchHome, SUBJECT } from './brain-home.js';
import { generateCorpus, describeCorpus } from './corpus.js';
import { biggestRelations, diskUse } from './disk.js';
import { measureEmbedding } from './embedding.js';
import { startBenchOllama } from './fake-ollama.js';
import { callTool, connect, runQueries, type BenchMode } from './mcp.js';
import { loadAverage, runBrain, startServer } from './processes.js';
import { heldOutQueries } from './queries.js';
import type { SizeResult, StartRun } from './results.js';

export interface SizeOptions {
  pages: number;
  seed: number;
  /** Where everything goes: corpus/, home/, config/. */
  workDir: string;
  queries: number;
  modes: BenchMode[];
  starts: number;
  idleSeconds: number;
  /** Idle seconds after the idle figure before the first start's brain sleeps (0: it does not). */
  sleepSeconds: number;
  settleSeconds: number;
  embedSeconds: number;
  offlineSeconds: number;
  cliRuns: number;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = (p: Promise<number>, ms: number): Promise<number> => Promise.race([p, sleep(ms).then(() => NaN)]);

export async function runSize(o: SizeOptions): Promise<SizeResult> {
  const { log } = o;
  const corpusDir = join(o.workDir, 'corpus');
  const { home, baseUrl, env } = await prepareBenchHome(o.workDir);
  const failures: string[] = [];
  const loadBefore = loadAverage();

  log(`[${o.pages}] generating the corpus in ${corpusDir} (load ${loadBefore})`);
  let t = performance.now();
  const { stats: corpus, model } = generateCorpus(corpusDir, { pages: o.pages, seed: o.seed });
  const generateSeconds = (performance.now() - t) / 1000;
  log(`    ${describeCorpus(corpus)}; ${generateSeconds.toFixed(1)} s`);
  const queries = heldOutQueries(model, o.queries, o.seed + 16);

  const none = { ...env, BRAIN_EMBEDDER: 'none' };
  const init = await runBrain(['init'], none);
  if (init.code !== 0) throw new Error(`brain init exited ${init.code}: ${init.stderr}`);

  // ---- import
  log(`[${o.pages}] brain import (BRAIN_EMBEDDER=none), load ${loadAverage()}`);
  const imp = await runBrain(['import', corpusDir, '--subject', SUBJECT, '--json', '--quiet'], none);
  let report: { ok?: boolean; seconds?: number; timings?: Record<string, number>; pages?: { stored: number; failed: number }; links?: { stored: number }; timeline?: { episodes: number }; failed?: unknown[] } = {};
  try {
    report = JSON.parse(imp.stdout) as typeof report;
  } catch {
    failures.push(`brain import printed no JSON report (exit ${imp.code}): ${imp.stderr.slice(-500)}`);
  }
  const importOk = imp.code === 0 && report.ok === true && (report.failed?.length ?? 0) === 0;
  if (!importOk) failures.push(`brain import exited ${imp.code}, ok ${report.ok}, ${report.failed?.length ?? '?'} files failed: ${imp.stderr.slice(-500)}`);
  const importRun = {
    seconds: imp.ms / 1000,
    peakRssMb: imp.peakRssMb,
    ...(report.seconds !== undefined ? { reportSeconds: report.seconds } : {}),
    ...(report.timings ? { timings: report.timings } : {}),
    ...(report.pages ? { pagesStored: report.pages.stored } : {}),
    ...(report.links ? { linksStored: report.links.stored } : {}),
    ...(report.timeline ? { episodes: report.timeline.episodes } : {}),
    ok: importOk,
    load: loadAverage(),
  };
  log(`    ${importRun.seconds.toFixed(1)} s, peak RSS ${Math.round(importRun.peakRssMb)} MiB, ${importRun.pagesStored} pages, ${importRun.linksStored} links, ${importRun.episodes} episodes`);

  const dataDir = join(home, 'data');
  const diskAfterImport = diskUse(dataDir);
  let relations: SizeResult['relations'];
  try {
    const r = await biggestRelations(dataDir);
    relations = { relations: r.relations, databaseBytes: r.databaseBytes };
  } catch (error) {
    log(`    (relation sizes not read: ${(error as Error).message})`);
  }
  log(`    disk ${(diskAfterImport.total / 2 ** 20).toFixed(0)} MiB (base ${(diskAfterImport.base / 2 ** 20).toFixed(0)}, pg_wal ${(diskAfterImport.wal / 2 ** 20).toFixed(0)})`);

  const fake = await startBenchOllama();
  const withFake = { ...env, BRAIN_EMBEDDER: 'ollama', OLLAMA_URL: fake.url };
  const result: SizeResult = {
    pages: o.pages, seed: o.seed, loadBefore, loadAfter: '', corpus, generateSeconds, importRun, diskAfterImport,
    ...(relations ? { relations } : {}), starts: [], searches: [], searchContext: {}, rssAfterSearches: {}, cli: { searchStopped: [], queryStopped: [], searchRunning: [] }, failures,
  };
  const token = () => {
    const f = join(home, 'secrets', `brain_${SUBJECT}.token`);
    return existsSync(f) ? readFileSync(f, 'utf8').trim() : undefined;
  };
  const measureStarts = async (label: string, startEnv: NodeJS.ProcessEnv) => {
    const run: StartRun = { embedder: label, listening: [], healthy: [], initialize: [], firstTool: [], openLine: [], idleRssMb: NaN, idleSeconds: o.idleSeconds };
    // The first start also sleeps once idle (db/embedded.ts): after its idle figure, the RSS
    // asleep and the tool call that wakes it.
    const sleepsAfter = o.idleSeconds + o.sleepSeconds;
    for (let i = 0; i < o.starts; i++) {
      const s = startServer(i === 0 && o.sleepSeconds > 0 ? { ...startEnv, BRAIN_EMBEDDED_IDLE_MINUTES: String(sleepsAfter / 60) } : startEnv, SUBJECT, baseUrl);
      try {
        run.healthy.push(await s.healthy);
        const client = await connect(`${baseUrl}/mcp`, token());
        run.initialize.push(performance.now() - s.started);
        await callTool(client, 'list', { what: 'cards', limit: 1 });
        run.firstTool.push(performance.now() - s.started);
        // The product's own lines, when it prints them (their wording may change: NaN then).
        run.listening.push(await within(s.listening, 10_000));
        run.openLine.push(await within(s.openLine, 30_000));
        await client.close();
        if (i === 0) {
          const asleep = s.line(/the embedded brain is asleep/);
          await sleep(o.idleSeconds * 1000);
          run.idleRssMb = s.memory()?.rssMb ?? NaN;
          if (o.sleepSeconds > 0) {
            run.sleepSeconds = sleepsAfter;
            await within(asleep, (o.sleepSeconds + 60) * 1000);
            await sleep(2_000);
            run.asleepRssMb = s.memory()?.rssMb ?? NaN;
            const again = await connect(`${baseUrl}/mcp`, token());
            const t = performance.now();
            await callTool(again, 'list', { what: 'cards', limit: 1 });
            run.wakeToolMs = performance.now() - t;
            await again.close();
          }
        }
      } catch (error) {
        failures.push(`start (${label}): ${(error as Error).message.slice(0, 500)}`);
      } finally {
        await s.stop();
      }
    }
    result.starts.push(run);
    log(
      `    start, embedder ${label}: first tool call ${run.firstTool.map((x) => Math.round(x)).join(', ')} ms; idle RSS ${Math.round(run.idleRssMb)} MiB` +
        (run.asleepRssMb !== undefined ? `; asleep ${Math.round(run.asleepRssMb)} MiB, the tool call that woke it ${Math.round(run.wakeToolMs ?? NaN)} ms` : ''),
    );
  };
  // Each mode on a freshly started server: cold (each query's first run), then warm (again).
  const measureSearch = async (mode: BenchMode, searchEnv: NodeJS.ProcessEnv, context: string) => {
    log(`[${o.pages}] search over MCP, mode ${mode} (${context}): ${queries.length} cold + ${queries.length} warm, load ${loadAverage()}`);
    result.searchContext[mode] = context;
    const s = startServer(searchEnv, SUBJECT, baseUrl);
    try {
      await s.healthy;
      const client = await connect(`${baseUrl}/mcp`, token());
      await callTool(client, 'list', { what: 'cards', limit: 1 });
      // The brain's warm-up and first maintenance pass run once it is open: searched after them, as in use.
      await sleep(o.settleSeconds * 1000);
      for (const phase of ['cold', 'warm'] as const) {
        const timings = await runQueries(client, queries, mode, phase);
        result.searches.push(...timings);
        const bad = timings.filter((x) => x.error);
        if (bad.length) failures.push(`search ${mode} ${phase}: ${bad.length} errors, e.g. ${bad[0]!.error}`);
      }
      result.rssAfterSearches[mode] = s.memory()?.rssMb ?? NaN;
      await client.close();
    } catch (error) {
      failures.push(`search ${mode}: ${(error as Error).message.slice(0, 500)}`);
    } finally {
      await s.stop();
    }
  };

  try {
    // ---- before any vectors: starts and keyword search with no embedder (no worker running beside them)
    await measureStarts('none', none);
    if (o.modes.includes('keyword')) await measureSearch('keyword', none, 'BRAIN_EMBEDDER=none');

    // ---- embeddings with the fake Ollama (fast): the vectors semantic search then uses
    log(`[${o.pages}] embedding with the fake Ollama (at most ${o.embedSeconds} s), load ${loadAverage()}`);
    result.embedFake = await measureEmbedding(withFake, SUBJECT, baseUrl, { label: 'fake Ollama (nomic-embed-text, 768-d)', capSeconds: o.embedSeconds, log });
    const e = result.embedFake;
    if (e.state === 'degraded') failures.push('embedding with the fake Ollama ended degraded');
    log(`    ${e.cards.toLocaleString('en')} cards (${e.chunks.toLocaleString('en')} chunks), ${e.cardsPerSecond.toFixed(1)} cards/s, ${e.complete ? `all done in ${e.drainSeconds?.toFixed(0)} s` : `${e.pendingAtEnd} still pending at the limit`}`);
    result.diskAfterEmbeddings = diskUse(dataDir);
    // Past the time limit the fake refuses documents (still embedding queries): the worker backs
    // off instead of racing the searches, which run over the cards embedded so far.
    if (!e.complete) fake.refuseDocuments = true;
    const fakeContext = e.complete
      ? 'fake Ollama, every card embedded'
      : `fake Ollama, ${e.cards.toLocaleString('en')} of ${e.pendingAtStart.toLocaleString('en')} cards embedded (the rest refused by the fake: worker backing off)`;

    await measureStarts('fake Ollama', withFake);
    for (const mode of o.modes.filter((m) => m !== 'keyword')) await measureSearch(mode, withFake, fakeContext);

    // ---- one-shot CLI: brain stopped (the command opens the brain itself), then running
    log(`[${o.pages}] one-shot brain search / brain query, load ${loadAverage()}`);
    const names = queries.filter((q) => q.shape === 'name' || q.shape === 'question');
    const oneShot = async (command: string, i: number, into: number[]) => {
      const r = await runBrain([command, names[i % names.length]!.text, '--subject', SUBJECT], withFake);
      if (r.code !== 0) failures.push(`brain ${command} exited ${r.code}: ${r.stderr.slice(-300)}`);
      else into.push(r.ms);
    };
    for (let i = 0; i < o.cliRuns; i++) await oneShot('search', i, result.cli.searchStopped);
    for (let i = 0; i < o.cliRuns; i++) await oneShot('query', o.cliRuns + i, result.cli.queryStopped);
    const running = startServer(withFake, SUBJECT, baseUrl);
    try {
      await running.healthy;
      const client = await connect(`${baseUrl}/mcp`, token());
      await callTool(client, 'list', { what: 'cards', limit: 1 });
      await client.close();
      await sleep(o.settleSeconds * 1000);
      for (let i = 0; i < o.cliRuns; i++) await oneShot('search', 2 * o.cliRuns + i, result.cli.searchRunning);
    } catch (error) {
      failures.push(`CLI search, brain running: ${(error as Error).message.slice(0, 500)}`);
    } finally {
      await running.stop();
    }
  } finally {
    await fake.close();
  }

  // ---- the offline embedder, bounded: its rate over what it gets through in the time given
  if (o.offlineSeconds > 0) {
    log(`[${o.pages}] offline embedder in the server for ${o.offlineSeconds} s, load ${loadAverage()}`);
    try {
      result.embedOffline = await measureEmbedding({ ...env, BRAIN_EMBEDDER: 'offline' }, SUBJECT, baseUrl, { label: 'offline (use-lite-512)', capSeconds: o.offlineSeconds, log });
      const e = result.embedOffline;
      if (e.state === 'degraded') failures.push('offline embedding ended degraded');
      log(`    ${e.cards} cards (${e.chunks} chunks) in ${e.seconds.toFixed(0)} s: ${e.cardsPerSecond.toFixed(1)} cards/s, ${e.chunksPerSecond.toFixed(1)} chunks/s`);
    } catch (error) {
      failures.push(`offline embedding: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  result.loadAfter = loadAverage();
  return result;
}
