// Lint shares the subject's connections with everything else. Five lints at once on a
// subject of 2,500 cards used to hold all five pooled connections of a server-mode subject
// for the whole of their all-pairs joins, and a search asked meanwhile failed after the
// pool's 10 s connection timeout with "Error (internal)". Now one lint runs at a time per
// subject (the others wait, then are told lint is busy), each statement is short and under a
// statement_timeout, and a cancelled lint stops between batches with nothing applied.
// Calls go through the MCP tools and the same failure formatting the server uses.
import { sql } from 'kysely';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedLintSubject } from '../../bench/lint/seed.js';
import { lintRunning } from '../../services/curation/lint-batches.js';
import { lint, type LintEmbeddingHooks } from '../../services/curation/lint.js';
import { BrainError, type BrainContext } from '../../services/knowledge/index.js';
import { failure } from '../../services/mcp/result.js';
import { lintTool } from '../../services/mcp/tools/lint.js';
import { searchTool } from '../../services/mcp/tools/search.js';
import type { AnyBrainTool, ToolDeps } from '../../services/mcp/tools/types.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOn, describeOnBothDatabases } from '../support/both-databases.js';
import type { BrainUnderTest } from '../support/brains.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text as resultText } from '../support/mcp.js';

const CARDS = 2_500;

/** As services/mcp/tools/index.ts runs a tool: a thrown error becomes an isError result. */
async function call(tool: AnyBrainTool, args: unknown, deps: ToolDeps, signal?: AbortSignal): Promise<CallToolResult & { ms: number }> {
  const started = performance.now();
  const extra = { mcpReq: { signal: signal ?? new AbortController().signal } } as never;
  let result: CallToolResult;
  try {
    result = await tool.run(args, deps, extra);
  } catch (error) {
    result = failure(error);
  }
  return { ...result, ms: performance.now() - started };
}
const text = (r: CallToolResult) => r.content.map((c) => ('text' in c ? c.text : '')).join('\n');

async function seed(brain: BrainUnderTest, cards: number): Promise<{ ctx: BrainContext; word: string }> {
  const seeded = await seedLintSubject(brain.admin, 'homelab', { topics: cards });
  expect(seeded.topics).toBe(cards);
  expect((await brain.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.topics'))[0]!.n).toBe(cards);
  const title = (await brain.admin.query<{ title: string }>("SELECT title FROM homelab.topics WHERE slug = 'lint/7'"))[0]!.title;
  return { ctx: await contextFor(brain, 'homelab'), word: title.split(' ')[0]! };
}

describeOn('postgres', 'lint under load (server mode, a pool of 5 connections)', (brain) => {
  let ctx: BrainContext;
  let word: string;
  beforeAll(async () => {
    ({ ctx, word } = await seed(brain(), CARDS));
  }, 300_000);

  it('five lints at once and a search: the search answers, every lint reports or says lint is busy', { timeout: 300_000 }, async () => {
    const deps: ToolDeps = { ctx, services: {} };
    const lints = Array.from({ length: 5 }, () => call(lintTool, {}, deps));
    // The search arrives while the lints are running.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const searched = await call(searchTool, { query: word, mode: 'keyword' }, deps);
    const results = await Promise.all(lints);

    expect(text(searched)).not.toContain('Error (internal)');
    expect(searched.isError).toBeFalsy();
    expect(text(searched)).toContain('lint/');
    expect(searched.ms).toBeLessThan(5_000);

    expect(results).toHaveLength(5);
    const reports = results.filter((r) => !r.isError);
    const busy = results.filter((r) => r.isError);
    expect(reports.length).toBeGreaterThanOrEqual(1);
    for (const r of reports) expect(text(r)).toMatch(/^# Lint of homelab\n/);
    for (const r of busy) expect(text(r)).toMatch(/^Error \(unavailable\): lint of "homelab" is busy: another lint has been running/);
    expect(reports.length + busy.length).toBe(5);
    expect(lintRunning(ctx)).toBe(false);
    // The reports found the seeded near-duplicates and dead links.
    expect(text(reports[0]!)).toMatch(/## Near-duplicate cards — reported only[^\n]* \((\d{2,})\)\n/);
    expect(text(reports[0]!)).toMatch(/## Dead links — removed with apply \((\d{2,})\)/);
  });

  it('a lint statement that runs past the statement timeout stops lint with a clear error', { timeout: 60_000 }, async () => {
    // Timed from the slow statement's start: the checks before it take what they take.
    let started = Number.NaN;
    const slow: LintEmbeddingHooks = {
      async duplicateCandidates(run) {
        started = performance.now();
        await run.step('slow', (trx) => sql`SELECT pg_sleep(5)`.execute(trx));
        return [];
      },
    };
    const error = await lint(ctx, {}, slow, { statementTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(error).toBeInstanceOf(BrainError);
    expect((error as BrainError).code).toBe('unavailable');
    expect((error as BrainError).details).toEqual({ reason: 'timeout' });
    expect((error as BrainError).message).toMatch(/ran longer than 300 ms/);
    expect(lintRunning(ctx)).toBe(false);
  });
});

describeOnBothDatabases('lint: one at a time per subject, and cancellable', (brain) => {
  let ctx: BrainContext;
  const deadLinks = async () => (await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.links WHERE to_slug LIKE 'gone/%'"))[0]!.n;
  beforeAll(async () => {
    ({ ctx } = await seed(brain(), 600));
    expect(await deadLinks()).toBeGreaterThan(10);
  }, 300_000);

  it('a second lint waits, then is told lint is busy; the first one still reports', { timeout: 120_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStep!: () => void;
    const started = new Promise<void>((resolve) => (firstStep = resolve));
    const first = lint(ctx, {}, {}, {
      onStep: async () => {
        firstStep();
        await held;
      },
    });
    await started;
    expect(lintRunning(ctx)).toBe(true);
    const t = performance.now();
    const second = await call(lintTool, {}, { ctx, services: {} }).catch((e: unknown) => e);
    // The tool waits the default 10 s before it answers busy.
    expect((second as { ms: number }).ms).toBeGreaterThan(9_000);
    expect(text(second as CallToolResult)).toMatch(/^Error \(unavailable\): lint of "homelab" is busy: another lint has been running for \d+ s/);
    expect(text(second as CallToolResult)).toContain('Hint: Wait a minute and call lint again');
    expect(performance.now() - t).toBeLessThan(30_000);
    release();
    const report = await first;
    expect(report.deadLinks.length).toBeGreaterThan(10);
    expect(lintRunning(ctx)).toBe(false);
  });

  it('a waiting lint takes its turn when the running one ends within its wait', { timeout: 120_000 }, async () => {
    const first = lint(ctx, {});
    const second = lint(ctx, {}, {}, { waitMs: 60_000 });
    const [a, b] = await Promise.all([first, second]);
    expect(b.duplicateTopics).toEqual(a.duplicateTopics);
    expect(b.orphans).toEqual(a.orphans);
  });

  it('cancelled between batches: an unavailable error saying so, nothing applied, the next lint runs', { timeout: 120_000 }, async () => {
    const before = await deadLinks();
    const controller = new AbortController();
    const checks: string[] = [];
    const error = await lint(ctx, { apply: { deadLinks: true, mergeTags: true } }, {}, {
      signal: controller.signal,
      onStep: ({ check }) => {
        checks.push(check);
        if (check === 'title-trigrams') controller.abort();
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrainError);
    expect((error as BrainError).code).toBe('unavailable');
    expect((error as BrainError).details).toEqual({ reason: 'cancelled' });
    expect((error as BrainError).message).toBe('lint of "homelab" was cancelled before it finished; nothing was applied');
    // It stopped at the first batch after the cancellation, before the pairs were checked.
    expect(checks).toEqual(['orphans', 'dead-links', 'archived-links', 'unexplained-upcasts', 'title-trigrams']);
    expect(await deadLinks()).toBe(before);
    expect(lintRunning(ctx)).toBe(false);
    expect((await lint(ctx, {})).deadLinks.length).toBe(before);
  });

  it('through the MCP tool: a request the client cancelled answers that lint was cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await call(lintTool, { apply: { deadLinks: true } }, { ctx, services: {} }, controller.signal);
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Error (unavailable): lint of "homelab" was cancelled before it finished; nothing was applied\nHint: Run lint again when you want its report.');
    expect(await deadLinks()).toBeGreaterThan(10);
  });

  it('a lint waiting for its turn stops waiting when cancelled', { timeout: 60_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = lint(ctx, {}, {}, { onStep: () => held });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const controller = new AbortController();
    const waiting = lint(ctx, {}, {}, { signal: controller.signal, waitMs: 60_000 }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 100);
    const t = performance.now();
    const error = await waiting;
    expect(performance.now() - t).toBeLessThan(5_000);
    expect((error as BrainError).details).toEqual({ reason: 'cancelled' });
    release();
    await first;
  });
});

describeOnBothDatabases('lint over MCP: the client cancels, the server stops', (brain) => {
  let server: RunningSubjectServer;
  const deadLinks = async () => (await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.links WHERE to_slug LIKE 'gone/%'"))[0]!.n;
  const until = async (what: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!what()) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return true;
  };
  beforeAll(async () => {
    await seed(brain(), 3_000);
    server = await startTestServer(brain(), 'homelab');
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it('a cancelled lint request stops the server-side lint before it applies anything', { timeout: 120_000 }, async () => {
    const before = await deadLinks();
    expect(before).toBeGreaterThan(50);
    const client = await connectClient(server.url);
    try {
      const controller = new AbortController();
      const pending = client.callTool({ name: 'lint', arguments: { apply: { deadLinks: true } } }, undefined, { signal: controller.signal }).catch((e: unknown) => e);
      expect(await until(() => lintRunning(server.ctx), 10_000)).toBe(true);
      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      // The server's lint saw the cancellation and ended, having applied nothing.
      expect(await until(() => !lintRunning(server.ctx), 10_000)).toBe(true);
      expect(await deadLinks()).toBe(before);
      // The subject is free for the next lint, which reports the same dead links.
      const report = resultText(await client.callTool({ name: 'lint', arguments: {} }));
      expect(report).toContain(`## Dead links — removed with apply (${before})`);
    } finally {
      await client.close();
    }
  });
});
