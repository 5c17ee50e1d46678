// The deny-list corpus (test/fixtures/deny-list-corpus.jsonl) driven through every route by
// which text reaches `personal`, each write judged by what the route answers:
//   sql       raw SQL as a project role (homelab): INSERT INTO personal.topics ... (rolled back)
//   upcast    the `upcast` MCP tool on homelab's server (the text is the project card's body)
//   remember  personal's own `remember` MCP tool on personal's server
//   import    a GBrain directory imported into personal, one page per case
//   propose   a session-close proposal from homelab aimed at personal, then commit
// Refused means the deny-list refused it (SQLSTATE BRD01, or the tool's denied_by_deny_list,
// or the import's or commit's "refused by the deny-list"); written means the route wrote it;
// anything else is an error, which counts against the case whatever it expected.
// Used by test/knowledge/deny-list-corpus.test.ts (thresholds) and bench/deny-list/corpus.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { sqlState } from '../../db/sql.js';
import { commitProposal, propose } from '../../services/curation/proposals.js';
import { importBrain } from '../../services/gbrain/import.js';
import { createContext, createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { startSubjectServer, type RunningSubjectServer } from '../../services/runtime/subject-server.js';
import type { CorpusBrain } from './brain.js';

export interface CorpusCase {
  n: number;
  expect: 'refuse' | 'pass';
  /** The evasion class (must-refuse) or the benign look-alike class (must-pass). */
  class: string;
  /** The class the refusal must name, where the case pins it. */
  label?: string;
  text: string;
}

export const CORPUS_FILE = join(PACKAGE_ROOT, 'test', 'fixtures', 'deny-list-corpus.jsonl');

export function loadCorpus(file = CORPUS_FILE): CorpusCase[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusCase);
}

export const ROUTES = ['sql', 'upcast', 'remember', 'import', 'propose'] as const;
export type Route = (typeof ROUTES)[number];

export interface Outcome {
  n: number;
  result: 'refused' | 'written' | 'error';
  /** The refusal or error as the route said it. */
  message?: string;
}

export interface RouteRates {
  route: Route;
  refused: number;
  mustRefuse: number;
  written: number;
  mustPass: number;
  /** Cases the route failed for another reason than the deny-list. */
  errors: Outcome[];
  /** Must-refuse cases that were written, must-pass cases that were refused. */
  misses: CorpusCase[];
  falsePositives: CorpusCase[];
  /** Refusals that did not name the class the case pins (label). */
  wrongClass: { case: CorpusCase; message: string }[];
  /** What the route answered, per case. */
  outcomes: Outcome[];
  seconds: number;
}

const MCP_RATE = { perSecond: 10_000, burst: 10_000 };
const REASON = 'generic knowledge, kept apart from any project';
const DENIED = /denied_by_deny_list|refused by the deny-list/;

const homelabRole = (brain: CorpusBrain) => brain.config.subjects.find((s) => s.name === 'homelab')!.role;
const subjectOf = (brain: CorpusBrain, name: string) => brain.config.subjects.find((s) => s.name === name)!;

async function mcpClient(server: RunningSubjectServer): Promise<Client> {
  const client = new Client({ name: 'deny-list-corpus', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return client;
}

function toolText(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

async function withServer<T>(brain: CorpusBrain, subject: string, fn: (client: Client, ctx: BrainContext) => Promise<T>): Promise<T> {
  const server = await startSubjectServer({
    subject: subjectOf(brain, subject),
    handle: brain.subjectDb(subject),
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'silent' }),
    rateLimit: MCP_RATE,
  });
  let client: Client | undefined;
  try {
    client = await mcpClient(server);
    return await fn(client, server.ctx);
  } finally {
    await client?.close().catch(() => undefined);
    await server.close();
  }
}

function fromTool(n: number, result: unknown): Outcome {
  const text = toolText(result);
  if (!(result as { isError?: boolean }).isError) return { n, result: 'written' };
  return { n, result: DENIED.test(text) ? 'refused' : 'error', message: text };
}

const routes: Record<Route, (brain: CorpusBrain, cases: readonly CorpusCase[]) => Promise<Outcome[]>> = {
  async sql(brain, cases) {
    const out: Outcome[] = [];
    for (const c of cases) {
      try {
        await brain.asRole(homelabRole(brain), (s) =>
          s.query("INSERT INTO personal.topics (slug, kind, title, body) VALUES ($1, 'concept', $2, $3)", [`corpus/sql-${c.n}`, `Corpus case ${c.n}`, c.text]),
        );
        out.push({ n: c.n, result: 'written' });
      } catch (error) {
        const message = (error as Error).message;
        out.push({ n: c.n, result: sqlState(error) === 'BRD01' ? 'refused' : 'error', message });
      }
    }
    return out;
  },

  async upcast(brain, cases) {
    return withServer(brain, 'homelab', async (client, homelab) => {
      const out: Outcome[] = [];
      for (const c of cases) {
        const slug = `corpus/upcast-${c.n}`;
        // The project card holds the text; the upcast carries it into personal under a generic title.
        try {
          await createTopic(homelab, { slug, kind: 'concept', title: `Upcast case ${c.n}`, body: c.text });
        } catch (error) {
          out.push({ n: c.n, result: 'error', message: `the project card: ${(error as Error).message}` });
          continue;
        }
        out.push(fromTool(c.n, await client.callTool({ name: 'upcast', arguments: { slug, reason: REASON } })));
      }
      return out;
    });
  },

  async remember(brain, cases) {
    return withServer(brain, 'personal', async (client) => {
      const out: Outcome[] = [];
      for (const c of cases) {
        const args = { kind: 'concept', title: `Remember case ${c.n}`, body: c.text, forceNew: true, reason: 'a corpus case of its own' };
        out.push(fromTool(c.n, await client.callTool({ name: 'remember', arguments: args })));
      }
      return out;
    });
  },

  async import(brain, cases) {
    const dir = mkdtempSync(join(tmpdir(), 'deny-corpus-import-'));
    try {
      mkdirSync(join(dir, 'concepts'));
      for (const c of cases) writeFileSync(join(dir, 'concepts', `case-${c.n}.md`), `---\ntitle: Import case ${c.n}\n---\n\n${c.text}\n`);
      const personal = await createContext(subjectOf(brain, 'personal'), brain.subjectDb('personal').db);
      const report = await importBrain(personal, dir, { reason: 'corpus import' });
      const failed = new Map(report.failed.map((f) => [f.path, f.reason]));
      return cases.map((c): Outcome => {
        const reason = failed.get(`concepts/case-${c.n}.md`);
        if (reason === undefined) return { n: c.n, result: 'written' };
        return { n: c.n, result: DENIED.test(reason) ? 'refused' : 'error', message: reason };
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },

  async propose(brain, cases) {
    const homelab = await createContext(subjectOf(brain, 'homelab'), brain.subjectDb('homelab').db);
    const out: Outcome[] = [];
    for (let i = 0; i < cases.length; i += 50) {
      const batch = cases.slice(i, i + 50);
      const items = batch.map((c) => ({ type: 'topic', subject: 'personal', kind: 'concept', title: `Proposed case ${c.n}`, body: c.text, reason: REASON }));
      const proposal = await propose(homelab, { items });
      const outcomes = await commitProposal(homelab, proposal.id, undefined);
      for (const o of outcomes) {
        const c = batch[o.n - 1]!;
        if (o.result === 'written') out.push({ n: c.n, result: 'written' });
        else out.push({ n: c.n, result: DENIED.test(o.detail) ? 'refused' : 'error', message: o.detail });
      }
    }
    return out;
  },
};

/** Runs the cases through one route and counts what came out. */
export async function runRoute(brain: CorpusBrain, route: Route, cases: readonly CorpusCase[]): Promise<RouteRates> {
  const started = performance.now();
  const outcomes = await routes[route](brain, cases);
  const byN = new Map(outcomes.map((o) => [o.n, o]));
  const rates: RouteRates = {
    route,
    refused: 0,
    mustRefuse: 0,
    written: 0,
    mustPass: 0,
    errors: [],
    misses: [],
    falsePositives: [],
    wrongClass: [],
    outcomes,
    seconds: 0,
  };
  for (const c of cases) {
    const o = byN.get(c.n) ?? { n: c.n, result: 'error' as const, message: 'no outcome' };
    if (o.result === 'error') rates.errors.push(o);
    if (c.expect === 'refuse') {
      rates.mustRefuse++;
      if (o.result === 'refused') {
        rates.refused++;
        if (c.label && !o.message?.includes(c.label)) rates.wrongClass.push({ case: c, message: o.message ?? '' });
      } else rates.misses.push(c);
    } else {
      rates.mustPass++;
      if (o.result === 'written') rates.written++;
      else rates.falsePositives.push(c);
    }
  }
  rates.seconds = (performance.now() - started) / 1000;
  return rates;
}

export const pct = (part: number, whole: number) => (whole === 0 ? 0 : (100 * part) / whole);

/** One line per route: the two rates, errors, time. */
export function ratesLine(r: RouteRates): string {
  const refused = `${r.refused}/${r.mustRefuse} refused (${pct(r.refused, r.mustRefuse).toFixed(1)}%)`;
  const written = `${r.written}/${r.mustPass} written (${pct(r.written, r.mustPass).toFixed(1)}%)`;
  return `${r.route.padEnd(9)} ${refused.padEnd(28)} ${written.padEnd(28)} ${String(r.errors.length).padStart(3)} errors  ${r.seconds.toFixed(1)} s`;
}
