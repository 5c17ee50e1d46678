// The single registry of tools. Each tool is one file with its schema, description and
// annotations; failures become isError results with a hint, never protocol errors.
import type { McpServer } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { failure } from '../result.js';
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
  proposeTool,
  commitTool,
  lintTool,
];

/**
 * The zod schema as the SDK expects it, minus the `$schema` dialect line on every tool:
 * 2020-12 is MCP's default dialect, and tools/list is paid for in every session's context.
 */
function withoutDialect(schema: z.ZodObject): z.ZodObject {
  const std = schema['~standard'];
  const jsonSchema = {
    input: (options: Parameters<typeof std.jsonSchema.input>[0]) => {
      const { $schema: _dialect, ...rest } = std.jsonSchema.input(options);
      return rest;
    },
    output: std.jsonSchema.output,
  };
  return new Proxy(schema, {
    get: (target, key, receiver) => (key === '~standard' ? { ...std, jsonSchema } : Reflect.get(target, key, receiver)),
  });
}

/** Tools that make no sense for this subject (personal cannot upcast into itself). */
function applies(tool: AnyBrainTool, deps: ToolDeps): boolean {
  return !(tool.name === 'upcast' && deps.ctx.subject.isPersonal);
}

export function registerTools(server: McpServer, deps: ToolDeps, logError: (error: unknown) => void, extra: readonly AnyBrainTool[] = []): void {
  for (const tool of [...TOOLS, ...extra]) {
    if (!applies(tool, deps)) continue;
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: withoutDialect(tool.inputSchema(deps)), annotations: tool.annotations },
      async (args: unknown, ctx) => {
        try {
          return await tool.run(args, deps, ctx);
        } catch (error) {
          return failure(error, logError);
        }
      },
    );
  }
}
