// The scale bench's tables, in markdown: one per size (with how each figure is measured), and
// a summary with issue 17's rows, one column per size.
import type { BenchMode, SearchTiming } from './mcp.js';
import { SHAPES } from './queries.js';
import { summarize, type BacklogResult, type EmbedRun, type SizeResult, type StartRun } from './results.js';

const n = (x: number) => x.toLocaleString('en');
export const ms = (x: number): string => (!Number.isFinite(x) ? '—' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${n(Math.round(x))} ms`);
const mib = (bytes: number) => `${n(Math.round(bytes / 2 ** 20))} MiB`;
const mb = (x: number) => (Number.isFinite(x) ? `${n(Math.round(x))} MiB` : '—');
const p5095 = (xs: number[]) => (xs.length ? `${ms(summarize(xs).p50)} / ${ms(summarize(xs).p95)}` : '—');

function searchesOf(r: SizeResult, mode: BenchMode, phase: 'cold' | 'warm', shape?: string): SearchTiming[] {
  return r.searches.filter((s) => s.mode === mode && s.phase === phase && !s.error && (shape === undefined || s.shape === shape));
}

const embedText = (e: EmbedRun | undefined): string =>
  !e
    ? 'not run'
    : `${e.cardsPerSecond.toFixed(1)} cards/s, ${e.chunksPerSecond.toFixed(1)} chunks/s (${n(e.cards)} cards in ${e.seconds.toFixed(0)} s; ${e.complete ? `nothing pending after ${e.drainSeconds?.toFixed(0)} s` : `stopped at the limit, ${n(e.pendingAtEnd)} pending`}; peak RSS ${mb(e.peakRssMb)})`;

const startText = (s: StartRun | undefined): string =>
  !s ? '—' : `${p5095(s.listening)} · ${p5095(s.initialize)} · ${p5095(s.firstTool)}`;

export function sizeTable(r: SizeResult): string {
  const c = r.corpus;
  const imp = r.importRun;
  const d = r.diskAfterImport;
  const lines: string[] = [
    `## ${n(r.pages)} pages (seed ${r.seed}; load average ${r.loadBefore} before, ${r.loadAfter} after)`,
    '',
    `Corpus: ${n(c.pages)} pages, ${n(c.links)} links (${n(c.missingLinks)} to missing pages), ${n(c.timelineLines)} timeline lines, ${n(c.sidecars)} sidecars, ${(c.bytes / 2 ** 20).toFixed(1)} MiB; ` +
      `${n(c.tokens)} words, "${c.topWord.word}" ×${n(c.topWord.count)}, median word ×${c.medianWordCount}. Generated in ${r.generateSeconds.toFixed(1)} s.`,
    '',
    '| figure | value | how it is measured |',
    '| --- | --- | --- |',
    `| import ${n(r.pages)} pages (links and timeline included) | **${imp.seconds.toFixed(1)} s** (${n(Math.round(r.pages / imp.seconds))} pages/s)${imp.timings ? `; its own phases: ${Object.entries(imp.timings).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}` : ''}; load ${imp.load} at the end | \`brain import DIR --subject homelab --json --quiet\`, BRAIN_EMBEDDER=none, spawn to exit; ${imp.pagesStored} pages, ${imp.linksStored} links, ${imp.episodes} episodes stored |`,
    `| peak RSS during import | **${mb(imp.peakRssMb)}** | the import process's VmHWM (/proc), sampled every 100 ms |`,
    `| data directory after import | **${mib(d.total)}** (base/ ${mib(d.base)}, pg_wal/ ${mib(d.wal)}, rest ${mib(d.rest)}; apparent size ${mib(d.apparent)}) | allocated blocks of every file under BRAIN_HOME/data |`,
  ];
  if (r.diskAfterEmbeddings) {
    const e = r.diskAfterEmbeddings;
    lines.push(`| data directory after the fake Ollama's embeddings | ${mib(e.total)} (base/ ${mib(e.base)}, pg_wal/ ${mib(e.wal)}) | the same, after the run below${r.embedFake?.complete ? '' : ' (not every card embedded)'} |`);
  }
  for (const s of r.starts) {
    lines.push(
      `| \`brain serve --subject homelab\`, embedder ${s.embedder}: to listening · to initialize · to the database open, p50 / p95 (${s.firstTool.length} starts) | ${startText(s)} | spawn to the \`serving\` line; to MCP initialize answered (sent once /healthz answers); to the first tool call (\`list\`) answered, which waits for the database |`,
      `| idle RSS, embedder ${s.embedder} | **${mb(s.idleRssMb)}**${s.embedder !== 'none' && r.embedFake && !r.embedFake.complete ? ' (not every card embedded: its worker backing off)' : ''} | VmRSS of the server ${s.idleSeconds} s after its first tool call, no requests |`,
    );
    if (s.asleepRssMb !== undefined) {
      lines.push(
        `| idle RSS asleep, embedder ${s.embedder} | **${mb(s.asleepRssMb)}**; the tool call that woke it ${ms(s.wakeToolMs ?? NaN)} | the same server, with BRAIN_EMBEDDED_IDLE_MINUTES at ${s.sleepSeconds} s: VmRSS 2 s after its "asleep" line (PGlite closed); then a \`list\` call, which opens it again |`,
      );
    }
  }
  lines.push(
    `| embedding in the server, fake Ollama | ${embedText(r.embedFake)} | \`brain serve\` with BRAIN_EMBEDDER=ollama at a fake Ollama (bag-of-words hashing, 768-d, in the bench's process; bench/scale/fake-ollama.ts); the worker's "embedded cards" log lines, batches after the first; stopped at --embed-seconds |`,
    `| embedding in the server, offline embedder | ${embedText(r.embedOffline)} | the same with BRAIN_EMBEDDER=offline, for a bounded time |`,
    `| one-shot \`brain search\`, brain stopped, p50 / p95 | **${p5095(r.cli.searchStopped)}** (${r.cli.searchStopped.length} runs) | spawn to exit; the command opens the embedded brain itself (fake Ollama as its embedder) |`,
    `| one-shot \`brain query\` (hybrid), brain stopped | ${p5095(r.cli.queryStopped)} | the same |`,
    `| one-shot \`brain search\`, brain running | ${p5095(r.cli.searchRunning)} | the same, with \`brain serve\` running (the command calls its MCP server) |`,
    '',
    'Search over MCP (v1 SDK client, Streamable HTTP; each mode on a freshly started server: cold = each query\'s first run, warm = the same queries again):',
    '',
    '| mode (ran as) | phase | n | p50 | p95 | p99 | max | nothing relevant | errors | RSS after | server ran with |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  const modes = [...new Set(r.searches.map((s) => s.mode))];
  for (const mode of modes) {
    for (const phase of ['cold', 'warm'] as const) {
      const all = r.searches.filter((s) => s.mode === mode && s.phase === phase);
      const ok = searchesOf(r, mode, phase);
      const sm = summarize(ok.map((s) => s.ms));
      const ranAs = [...new Set(ok.map((s) => s.ranAs))].join('/');
      lines.push(`| ${mode} (${ranAs}) | ${phase} | ${sm.n} | ${ms(sm.p50)} | ${ms(sm.p95)} | ${ms(sm.p99)} | ${ms(sm.max)} | ${ok.filter((s) => s.nothing).length} | ${all.length - ok.length} | ${phase === 'warm' ? mb(r.rssAfterSearches[mode] ?? NaN) : ''} | ${phase === 'cold' ? (r.searchContext[mode] ?? '') : ''} |`);
    }
  }
  lines.push('', 'Cold searches by query shape, p50 / p95:', '', `| shape | ${modes.join(' | ')} |`, `| --- |${modes.map(() => ' --- |').join('')}`);
  for (const shape of SHAPES) lines.push(`| ${shape} | ${modes.map((m) => p5095(searchesOf(r, m, 'cold', shape).map((s) => s.ms))).join(' | ')} |`);
  if (r.relations) {
    lines.push('', `Biggest relations after import (table, indexes and TOAST; database ${mib(r.relations.databaseBytes)}):`, '', '| relation | size |', '| --- | --- |');
    for (const rel of r.relations.relations) lines.push(`| ${rel.name} | ${mib(rel.bytes)} |`);
  }
  if (r.failures.length) lines.push('', `**Failures (${r.failures.length}):**`, ...r.failures.map((f) => `- ${f}`));
  return `${lines.join('\n')}\n`;
}

export function summaryTable(results: SizeResult[]): string {
  const cols = results.map((r) => `${n(r.pages)} pages`);
  const row = (what: string, f: (r: SizeResult) => string) => `| ${what} | ${results.map(f).join(' | ')} |`;
  const search = (mode: BenchMode) => (r: SizeResult) => {
    const cold = summarize(searchesOf(r, mode, 'cold').map((s) => s.ms));
    const warm = summarize(searchesOf(r, mode, 'warm').map((s) => s.ms));
    return cold.n ? `${ms(cold.p50)} / ${ms(cold.p95)} / ${ms(cold.p99)} · ${ms(warm.p50)} / ${ms(warm.p95)} / ${ms(warm.p99)}` : '—';
  };
  const start = (label: string) => (r: SizeResult) => startText(r.starts.find((s) => s.embedder === label));
  const idle = (label: string) => (r: SizeResult) => mb(r.starts.find((s) => s.embedder === label)?.idleRssMb ?? NaN);
  const modes = [...new Set(results.flatMap((r) => r.searches.map((s) => s.mode)))];
  return [
    `| figure | ${cols.join(' | ')} |`,
    `| --- |${cols.map(() => ' --- |').join('')}`,
    row('import (links and timeline included)', (r) => `${r.importRun.seconds.toFixed(1)} s`),
    row('peak RSS during import', (r) => mb(r.importRun.peakRssMb)),
    row('data directory after import', (r) => mib(r.diskAfterImport.total)),
    row('`brain serve` start, embedder none: to listening · initialize · database open, p50 / p95', start('none')),
    row('the same, fake Ollama', start('fake Ollama')),
    row('idle RSS, embedder none / fake Ollama', (r) => `${idle('none')(r)} / ${idle('fake Ollama')(r)}`),
    row('idle RSS asleep (PGlite closed while idle), embedder none / fake Ollama; the tool call that wakes it', (r) => {
      const a = (label: string) => r.starts.find((s) => s.embedder === label);
      return `${mb(a('none')?.asleepRssMb ?? NaN)} / ${mb(a('fake Ollama')?.asleepRssMb ?? NaN)}; ${ms(a('none')?.wakeToolMs ?? NaN)}`;
    }),
    ...modes.map((m) => row(`search over MCP, ${m === 'default' ? 'default mode (no `mode`)' : m}: cold p50 / p95 / p99 · warm p50 / p95 / p99`, search(m))),
    row('one CLI search per process (`brain search`, brain stopped), p50 / p95', (r) => p5095(r.cli.searchStopped)),
    row('embedding in the server, offline embedder', (r) => (r.embedOffline ? `${r.embedOffline.cardsPerSecond.toFixed(1)} cards/s` : '—')),
    row('embedding in the server, fake Ollama', (r) => (r.embedFake ? `${r.embedFake.cardsPerSecond.toFixed(1)} cards/s` : '—')),
    row('load average before → after', (r) => `${r.loadBefore} → ${r.loadAfter}`),
  ].join('\n');
}

/** The whole-backlog line under the summary: cards/s over the card mix an import leaves. */
export function backlogText(b: BacklogResult): string {
  const e = b.run;
  const mix = `${n(b.pages)} pages (seed ${b.seed}) = ${n(b.topics)} topics + ${n(b.timelineLines)} episodes`;
  const whole = e.complete ? `**${b.wholeCardsPerSecond.toFixed(1)} cards/s** from spawn to nothing pending (${n(e.cards)} cards, ${n(e.chunks)} chunks in ${e.drainSeconds?.toFixed(0)} s)` : `stopped at its limit with ${n(e.pendingAtEnd)} pending`;
  return `Offline embedder in the server over a whole backlog, ${mix}: ${whole}; ${e.cardsPerSecond.toFixed(1)} cards/s, ${e.chunksPerSecond.toFixed(1)} chunks/s after the first batch; peak RSS ${mb(e.peakRssMb)}; load ${b.loadBefore} → ${b.loadAfter}.`;
}
