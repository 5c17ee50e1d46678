// Runs MCP tools in-process for `brain call`, `brain pipe` and `brain --tools-json`: the
// same tool files, schemas and services the servers use, acting as one subject.
import { z } from 'zod';
import { loadRuntimeConfig } from '../config/runtime.js';
import type { BrainContext } from '../services/knowledge/index.js';
import { failure } from '../services/mcp/result.js';
import { guardToolInput } from '../services/mcp/input-guard.js';
import { parseToolArgs } from '../services/mcp/tool-args.js';
import { TOOLS } from '../services/mcp/tools/index.js';
import type { AnyBrainTool, ToolDeps } from '../services/mcp/tools/types.js';
import { chooseEmbedder, pendingNote, subjectServices } from '../services/runtime/embedding.js';
import { createLogger } from '../services/runtime/logger.js';
import { withSubject } from './subject.js';

export interface ToolCallResult {
  ok: boolean;
  text: string;
}

export interface ToolRunner {
  readonly deps: ToolDeps;
  call(name: string, args: unknown): Promise<ToolCallResult>;
  close(): Promise<void>;
}

function toolFor(deps: ToolDeps, name: string): AnyBrainTool | undefined {
  return TOOLS.find((t) => t.name === name && !(t.name === 'upcast' && deps.ctx.subject.isPersonal));
}

/**
 * A one-shot command runs no embedding worker (it would embed one batch and be stopped):
 * cards it writes stay queued, and on close it says so on stderr (see pendingNote).
 */
export async function toolRunner(ctx: BrainContext, opts: { writes?: boolean; linked?: boolean } = {}): Promise<ToolRunner> {
  const logger = createLogger('claude-brain', process.env.BRAIN_LOG_LEVEL ?? 'error');
  const choice = await chooseEmbedder(loadRuntimeConfig());
  const { services, embedding } = subjectServices(ctx, choice, logger, undefined, false);
  const deps: ToolDeps = { ctx, services };
  // Tools that are not read-only count as writes; a command that writes through the services directly says so.
  let wrote = opts.writes === true;
  return {
    deps,
    async call(name, args) {
      const tool = toolFor(deps, name);
      if (!tool) return { ok: false, text: `Error (invalid_input): unknown tool "${name}"\nHint: brain --tools-json lists the tools.` };
      wrote ||= tool.annotations.readOnlyHint !== true;
      try {
        guardToolInput(tool.name, args);
        const r = await tool.run(parseToolArgs(tool.name, tool.inputSchema(deps), args), deps, undefined as never);
        return { ok: !r.isError, text: r.content.map((c) => ('text' in c ? c.text : '')).join('\n') };
      } catch (error) {
        const r = failure(error, (e) => logger.error({ err: e }, 'tool failed'));
        return { ok: false, text: r.content.map((c) => ('text' in c ? c.text : '')).join('\n') };
      }
    },
    async close() {
      await embedding.stop();
      // Linked to a running brain: its embedding worker takes the new cards.
      const note = wrote && !opts.linked ? await pendingNote(ctx, choice).catch(() => undefined) : undefined;
      if (note) process.stderr.write(`Note: ${note}\n`);
      await choice.embedder?.close?.();
    },
  };
}

/** Tool discovery for Claude Code and scripts: name, description, input schema. */
export function toolsJson(deps: ToolDeps): unknown[] {
  return TOOLS.filter((t) => toolFor(deps, t.name)).map((t) => {
    const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(t.inputSchema(deps), { io: 'input' }) as Record<string, unknown>;
    return { name: t.name, description: t.description, input_schema: inputSchema, annotations: t.annotations };
  });
}

/** Opens the subject (see withSubject), starts its tool runner, runs fn, closes both. */
export async function withToolRunner(
  values: { subject?: string | undefined; json?: boolean | undefined },
  fn: (runner: ToolRunner, ctx: BrainContext) => Promise<number>,
  opts: { writes?: boolean } = {},
): Promise<number> {
  return withSubject(values, async (ctx, session) => {
    const runner = await toolRunner(ctx, { ...opts, linked: session.linkedTo !== undefined });
    try {
      return await fn(runner, ctx);
    } finally {
      await runner.close();
    }
  });
}
