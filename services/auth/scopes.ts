// The two scopes and what they open. brain:read: the read-only tools (annotated readOnlyHint),
// run in read-only transactions (session-db.ts), so Postgres refuses a write even if a tool
// were mislabelled. brain:write: every tool. A write tool called with a read token is
// refused as a tool result naming the missing scope, with the way to get it.
import { BrainError } from '../knowledge/errors.js';
import type { AnyBrainTool } from '../mcp/tools/types.js';

export const READ_SCOPE = 'brain:read';
export const WRITE_SCOPE = 'brain:write';
export const SUPPORTED_SCOPES = [READ_SCOPE, WRITE_SCOPE] as const;

/** The scopes of a space-separated string that we know, in our order; unknown ones are dropped. */
export function parseScope(scope: string | undefined): string[] {
  const asked = new Set((scope ?? '').split(/\s+/).filter(Boolean));
  return SUPPORTED_SCOPES.filter((s) => asked.has(s));
}

/** write implies read: a token with brain:write may also read. */
export function canWrite(scopes: readonly string[]): boolean {
  return scopes.includes(WRITE_SCOPE);
}

/** A request with no (known) scope gets read and write, as the owner approves it; `brain auth approve --read-only` narrows it. */
export function requestedScope(scope: string | undefined): string {
  const known = parseScope(scope);
  return (known.length ? known : [...SUPPORTED_SCOPES]).join(' ');
}

/** The refusal for a tool this session's token does not cover, or undefined when it may run. */
export function scopeRefusal(tool: AnyBrainTool, scopes: readonly string[]): BrainError | undefined {
  if (tool.annotations.readOnlyHint || canWrite(scopes)) return undefined;
  return new BrainError(
    'insufficient_scope',
    `"${tool.name}" writes, and this connection's token has only ${scopes.join(' ') || 'no scope'}; it needs ${WRITE_SCOPE}`,
    `Read-only tools (search, get, list) still work. To write, reconnect and approve the client with ${WRITE_SCOPE} (brain auth approve without --read-only).`,
  );
}
