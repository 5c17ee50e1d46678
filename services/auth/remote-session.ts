// What an MCP session opened with an OAuth token gets: the subject's context over a session
// database handle (read-only transactions for brain:read, the client's name on every write:
// session-db.ts), and the refusal of write tools its scope does not cover (scopes.ts).
// Sessions opened locally, or with the owner's static bearer token, get the context unchanged.
import type { BrainContext, BrainError } from '../knowledge/index.js';
import type { AnyBrainTool } from '../mcp/tools/types.js';
import type { RequestAuth } from './resource-guard.js';
import { canWrite, scopeRefusal } from './scopes.js';
import { sessionDb } from './session-db.js';

export function remoteSession(ctx: BrainContext, auth: RequestAuth | undefined): { ctx: BrainContext; refuse?: (tool: AnyBrainTool) => BrainError | undefined } {
  if (!auth || auth.client === undefined) return { ctx };
  const scopes = auth.scopes;
  return {
    ctx: { ...ctx, db: sessionDb(ctx.db, { readOnly: !canWrite(scopes), client: auth.client }) },
    refuse: (tool) => scopeRefusal(tool, scopes),
  };
}
