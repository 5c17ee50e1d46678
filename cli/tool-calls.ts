// MCP tool calls from the command line (`brain call`, `pipe`, `search`, `query`, `remember`).
// When a brain runs and serves the subject (BRAIN_HOME/running.json, db/running-file.ts), the
// call goes to that subject's MCP server over loopback HTTP: the running brain's embedder
// and caches answer, and this process loads no database, zod schema or model, so the command
// answers in a fraction of a second. Otherwise the tools run in this process
// (cli/tool-runner.ts), as the servers would run them.
import { readFileSync } from 'node:fs';
import { loadRuntimeConfig } from '../config/runtime.js';
import { findRunning } from '../db/running-file.js';
import { McpHttpSession, toolText, type ToolText } from './mcp-http.js';
import { subjectFrom } from './subject-options.js';

export interface ToolCalls {
  call(name: string, args: unknown): Promise<ToolText>;
}

/** The running brain's MCP server for this subject, with a session started; undefined when none runs. */
async function runningTools(values: { subject?: string | undefined }): Promise<(ToolCalls & { close(): Promise<void> }) | undefined> {
  const rt = loadRuntimeConfig();
  // A server brain has no lock to share: its commands connect to Postgres themselves.
  if (rt.mode !== 'embedded') return undefined;
  const endpoint = findRunning(rt.home)?.mcp[subjectFrom(values)];
  if (!endpoint) return undefined;
  const token = endpoint.tokenFile ? readFileSync(endpoint.tokenFile, 'utf8').trim() : undefined;
  const session = new McpHttpSession(endpoint.url, token);
  try {
    await session.initialize();
  } catch {
    // Stopping, or not answering: the command opens the brain itself (or is refused, naming why).
    await session.close();
    return undefined;
  }
  return {
    async call(name, args) {
      return toolText(await session.request('tools/call', { name, arguments: args ?? {} }));
    },
    close: () => session.close(),
  };
}

/** Runs fn with the subject's tools: the running brain's, else this process's (see the top of the file). */
export async function withToolCalls(
  values: { subject?: string | undefined; json?: boolean | undefined },
  fn: (tools: ToolCalls) => Promise<number>,
  opts: { writes?: boolean } = {},
): Promise<number> {
  const remote = await runningTools(values);
  if (remote) {
    try {
      return await fn(remote);
    } finally {
      await remote.close();
    }
  }
  // This process opens the embedded brain itself: Postgres's WebAssembly compiles on V8's
  // threads while the tools' modules load on this one.
  if (loadRuntimeConfig().mode === 'embedded') (await import('../db/postgres-wasm.js')).startCompilingPostgres();
  const { withToolRunner } = await import('./tool-runner.js');
  return withToolRunner(values, (runner) => fn(runner), opts);
}
