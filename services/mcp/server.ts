// The MCP server factory: one McpServer per session, for one subject, holding only that
// subject's database handle.
import { McpServer, type ElicitRequestFormParams } from '@modelcontextprotocol/server';
import { VERSION } from '../../config/package.js';
import type { BrainContext, BrainError } from '../knowledge/index.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools/index.js';
import type { AnyBrainTool, ServerServices } from './tools/types.js';

export function instructions(ctx: BrainContext): string {
  const s = ctx.subject;
  const shared = s.isPersonal
    ? 'This is personal, the shared subject: every project reads it, so keep it free of project specifics.'
    : `"personal" is shared by every project: read it freely; writing there is an upcast and needs a reason. No other project is reachable.`;
  return [
    `claude-brain long-term memory, subject "${s.name}". ${shared}`,
    'Search before you rely on memory, and before you add: remember updates a matching card instead of duplicating it.',
    'Kinds are fixed (list what=kinds): topics are things, episodes are events. Tools act on this subject unless you pass subject: personal; writes there need a reason.',
    'Capture at the end of a session goes through propose; nothing is written until the human confirms.',
  ].join('\n');
}

export interface ServerFactoryDeps {
  ctx: BrainContext;
  services: ServerServices;
  extraTools?: readonly AnyBrainTool[];
  /** Refuses a tool this session may not call (an OAuth token without brain:write), as a tool error. */
  refuse?: ((tool: AnyBrainTool) => BrainError | undefined) | undefined;
  logError: (error: unknown) => void;
}

export function createBrainServer(deps: ServerFactoryDeps): McpServer {
  const server = new McpServer(
    { name: `claude-brain-${deps.ctx.subject.name}`, version: VERSION },
    { instructions: instructions(deps.ctx), capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  const human = {
    canElicit: () => Boolean(server.server.getClientCapabilities()?.elicitation),
    elicit: (params: ElicitRequestFormParams) => server.server.elicitInput(params),
  };
  registerTools(server, { ctx: deps.ctx, services: deps.services, human }, deps.logError, deps.extraTools, deps.refuse);
  registerResources(server, deps.ctx);
  registerPrompts(server, deps.ctx);
  return server;
}
