// The scale bench (issue 17): at each size, a generated GBrain corpus (corpus.ts) imported and
// served through the real `brain` commands, and the table printed: import time and peak
// RSS, disk, server start and idle RSS, search over MCP per mode (cold and warm, p50/p95/p99, by
// query shape), one-shot CLI search, embedding cards/s (fake Ollama and the offline embedder);
// then the offline embedder over a whole small backlog of the same corpus (backlog.ts).
// Process-level only: it measures whatever the product does through its entry points, so work
// on start time, memory, disk or embeddings shows in the figures without touching the bench.
// Numbers only, no timing is asserted; it exits 1 when a step fails (an import that reports
// failures, a search error). Method per figure: docs/performance.md#the-scale-bench.
//
// Usage: USAGE below (`--help` prints it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchMode } from './mcp.js';
import { fail } from './kept-brain.js';
import { loadAverage } from './processes.js';
import { measureOfflineBacklog } from './backlog.js';
import { backlogText, sizeTable, summaryTable } from './report.js';
import type { BacklogResult, SizeResult } from './results.js';
import { runSize } from './size-run.js';

const USAGE = `usage: npm run build && node dist/bench/scale/run.js [--sizes 7500[,30000,100000]] [--seed 1] [--queries 200]
    [--modes default,keyword,semantic,hybrid] [--starts 3] [--idle-seconds 15] [--sleep-seconds 30] [--settle-seconds 5]
    [--embed-seconds 600] [--offline-seconds 120] [--cli-runs 5] [--backlog-pages 400] [--backlog-seconds 900]
    [--keep DIR] [--json FILE]
What each figure is and how it is measured: docs/performance.md#the-scale-bench`;

const OPTIONS = {
  sizes: { type: 'string', default: '7500' },
  seed: { type: 'string', default: '1' },
  queries: { type: 'string', default: '200' },
  modes: { type: 'string', default: 'default,keyword,semantic,hybrid' },
  starts: { type: 'string', default: '3' },
  'idle-seconds': { type: 'string', default: '15' },
  'sleep-seconds': { type: 'string', default: '30' },
  'settle-seconds': { type: 'string', default: '5' },
  'embed-seconds': { type: 'string', default: '600' },
  'offline-seconds': { type: 'string', default: '120' },
  'cli-runs': { type: 'string', default: '5' },
  'backlog-pages': { type: 'string', default: '400' },
  'backlog-seconds': { type: 'string', default: '900' },
  keep: { type: 'string' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const { values } = (() => {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    // An unknown option or a missing value: say which, and how the bench is called.
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

function whole(name: string, raw: string, min = 0): number {
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) {
    console.error(`--${name} must be a whole number >= ${min}, got ${raw}`);
    process.exit(2);
  }
  return v;
}

const sizes = values.sizes.split(',').map((s) => whole('sizes', s.trim(), 10));
const modes = values.modes.split(',').map((m) => m.trim()) as BenchMode[];
for (const m of modes) if (!['default', 'keyword', 'semantic', 'hybrid'].includes(m)) (console.error(`--modes: unknown mode ${m}`), process.exit(2));
const log = (line: string) => process.stderr.write(`${line}\n`);

const root = values.keep ? resolve(values.keep) : mkdtempSync(join(tmpdir(), 'brain-scale-'));
mkdirSync(root, { recursive: true });
const loadBefore = loadAverage();
const results: SizeResult[] = [];
let backlog: BacklogResult | undefined;
const seed = whole('seed', values.seed);
const backlogPages = whole('backlog-pages', values['backlog-pages']);
const backlogSeconds = whole('backlog-seconds', values['backlog-seconds'], 10);
let failed = false;
const writeJson = () => {
  if (values.json) writeFileSync(values.json, JSON.stringify({ node: process.version, cores: cpus().length, loadBefore, loadNow: loadAverage(), results, backlog }, null, 2));
};
try {
  for (const pages of sizes) {
    const workDir = join(root, `size-${pages}`);
    rmSync(workDir, { recursive: true, force: true });
    mkdirSync(workDir, { recursive: true });
    try {
      const r = await runSize({
        pages,
        seed,
        workDir,
        queries: whole('queries', values.queries, 5),
        modes,
        starts: whole('starts', values.starts, 1),
        idleSeconds: whole('idle-seconds', values['idle-seconds']),
        sleepSeconds: whole('sleep-seconds', values['sleep-seconds']),
        settleSeconds: whole('settle-seconds', values['settle-seconds']),
        embedSeconds: whole('embed-seconds', values['embed-seconds'], 10),
        offlineSeconds: whole('offline-seconds', values['offline-seconds']),
        cliRuns: whole('cli-runs', values['cli-runs'], 1),
        log,
      });
      results.push(r);
      if (r.failures.length) failed = true;
      process.stdout.write(`\n${sizeTable(r)}\n`);
    } catch (error) {
      failed = true;
      log(`size ${pages} failed: ${(error as Error).stack ?? error}`);
    } finally {
      if (!values.keep) rmSync(workDir, { recursive: true, force: true });
    }
    writeJson();
  }
  if (backlogPages > 0) {
    const workDir = join(root, `backlog-${backlogPages}`);
    rmSync(workDir, { recursive: true, force: true });
    try {
      backlog = await measureOfflineBacklog({ workDir, pages: backlogPages, seed: seed + 1000, capSeconds: backlogSeconds, log });
      if (!backlog.run.complete || backlog.run.state === 'degraded') failed = true;
    } catch (error) {
      failed = true;
      log(`the offline backlog failed: ${(error as Error).stack ?? error}`);
    } finally {
      if (!values.keep) rmSync(workDir, { recursive: true, force: true });
    }
    writeJson();
  }
} finally {
  if (!values.keep) rmSync(root, { recursive: true, force: true });
}
process.stdout.write(
  `\n## Summary (Node ${process.version}, ${cpus().length} cores; load average ${loadBefore} before, ${loadAverage()} after)\n\n${summaryTable(results)}\n` +
    (backlog ? `\n${backlogText(backlog)}\n` : '') +
    (values.keep ? `\nKept: ${root}\n` : ''),
);
process.exit(failed ? 1 : 0);
