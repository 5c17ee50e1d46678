// One file per tool; each exports a BrainTool. The index registers them all.
import type { CallToolResult, ElicitRequestFormParams, ElicitResult, ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { LintEmbeddingHooks } from '../../curation/lint.js';
import type { TopicPlanner } from '../../curation/planner.js';
import type { BrainContext } from '../../knowledge/index.js';
import type { SearchDeps } from '../../search/index.js';
import { guardToolInput } from '../input-guard.js';
import { inToolTerms } from '../tool-args.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** The human on the other side of this session, when the client lets the server ask them. */
export interface HumanChannel {
  canElicit(): boolean;
  elicit(params: ElicitRequestFormParams): Promise<ElicitResult>;
}

/** What a tool may use: the subject's context, optional running services, the session. */
export interface ToolDeps {
  readonly ctx: BrainContext;
  readonly services: ServerServices;
  readonly human?: HumanChannel;
}

/** Optional services a tool can use; absent ones degrade the tool, never break it. */
export interface ServerServices {
  /** The embedder and its worker's status; without them search is keyword-only. */
  readonly search?: SearchDeps;
  /** Search before add for propose; without it, exact slug/title matches only. */
  readonly planner?: TopicPlanner;
  /** Embedding-based lint checks. */
  readonly lint?: LintEmbeddingHooks;
  /** How long a proposal waits for the human (default 24 hours). */
  readonly proposalTtlMinutes?: number;
}

export interface BrainTool<S extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: (deps: ToolDeps) => S;
  readonly annotations: ToolAnnotations;
  /** A service's name for a field this tool spells otherwise (sourceLabel: 'source'), for its errors. */
  readonly fieldNames?: Readonly<Record<string, string>>;
  run(args: z.output<S>, deps: ToolDeps, extra: ServerContext): Promise<CallToolResult>;
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const ADDITIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const IDEMPOTENT_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/**
 * Keeps each tool's argument types inferred from its own schema, checks every argument
 * before the tool runs (input-guard.ts), and words an invalid argument the services caught
 * as this tool spells it (tool-args.ts inToolTerms): the MCP servers and `brain call`/`pipe` alike.
 */
export function defineTool<S extends z.ZodObject>(tool: BrainTool<S>): BrainTool<S> {
  return {
    ...tool,
    async run(args, deps, extra) {
      try {
        guardToolInput(tool.name, args);
        return await tool.run(args, deps, extra);
      } catch (error) {
        throw inToolTerms(tool.name, tool.fieldNames ?? {}, error);
      }
    },
  };
}

// The registry holds tools of different schemas; each is checked by its own defineTool.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyBrainTool = BrainTool<any>;
