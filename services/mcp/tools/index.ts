// The single registry of tools. Each tool is one file with its schema, description and
// annotations; failures become isError results with a hint, never protocol errors.
import type { McpServer } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { asOneUnitOfWork } from '../../../db/work-order.js';
import { guardToolInput } from '../input-guard.js';
import type { BrainError } from '../../knowledge/index.js';
import { failure } from '../result.js';
import { parseToolArgs } from '../tool-args.js';
import { archiveTool } from './archive.js';
import { getTool } from './get.js';
import { historyTool } from './history.js';
import { ingestTool } from './ingest.js';
import { linkTool } from './link.js';
import { lintTool } from './lint.js';
import { listTool } from './list.js';
import { commitTool, proposeTool } from './propose.js';
import { recordTool } from './record.js';
import { rememberTool } from './remember.js';
import { searchTool } from './search.js';
import { tagTool } from './tag.js';
import type { AnyBrainTool, ToolDeps } from './types.js';
import { upcastTool } from './upcast.js';

export const TOOLS: readonly AnyBrainTool[] = [
  searchTool,
  getTool,
  rememberTool,
  listTool,
  recordTool,
  linkTool,
  tagTool,
  ingestTool,
  upcastTool,
  historyTool,
  archiveTool,
  proposeTool,
  commitTool,
  lintTool,
];

/**
 * The zod schema as the SDK lists it, minus the `$schema` dialect line on every tool (2020-12
 * is MCP's default dialect, and tools/list is paid for in every session's context), and with
 * the SDK's own validation turned into a pass-through: the handler parses the arguments
 * itself (tool-args.ts), so a bad argument is a tool error of our shape, not the SDK's.
 */
function forTheSdk(schema: z.ZodObject): z.ZodObject {
  const std = schema['~standard'];
  const jsonSchema = {
    input: (options: Parameters<typeof std.jsonSchema.input>[0]) => {
      const { $schema: _dialect, ...rest } = std.jsonSchema.input(options);
      return rest;
    },
    output: std.jsonSchema.output,
  };
  const validate = (value: unknown) => ({ value });
  return new Proxy(schema, {
    get: (target, key, receiver) => (key === '~standard' ? { ...std, jsonSchema, validate } : Reflect.get(target, key, receiver)),
  });
}

/** Tools that make no sense for this subject (personal cannot upcast into itself). */
function applies(tool: AnyBrainTool, deps: ToolDeps): boolean {
  return !(tool.name === 'upcast' && deps.ctx.subject.isPersonal);
}

export function registerTools(
  server: McpServer,
  deps: ToolDeps,
  logError: (error: unknown) => void,
  extra: readonly AnyBrainTool[] = [],
  refuse?: (tool: AnyBrainTool) => BrainError | undefined,
): void {
  for (const tool of [...TOOLS, ...extra]) {
    if (!applies(tool, deps)) continue;
    const schema = tool.inputSchema(deps);
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: forTheSdk(schema), annotations: tool.annotations },
      async (args: unknown, ctx) => {
        try {
          const refusal = refuse?.(tool);
          if (refusal) return failure(refusal);
          guardToolInput(tool.name, args);
          // One unit of work: its trips to the embedded brain go before newer calls' (db/work-order.ts).
          return await asOneUnitOfWork(() => tool.run(parseToolArgs(tool.name, schema, args), deps, ctx));
        } catch (error) {
          return failure(error, logError);
        }
      },
    );
  }
}
