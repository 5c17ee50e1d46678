// Tool results. Success is compact markdown (every token returned lands in the model's
// context); failure is a result with isError and a recovery hint, never a protocol error,
// because the hint is all the model sees.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { BrainError } from '../knowledge/index.js';

export function ok(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

export function failure(error: unknown, log?: (error: unknown) => void): CallToolResult {
  if (error instanceof BrainError) {
    return { isError: true, content: [{ type: 'text', text: `Error (${error.code}): ${error.message}\nHint: ${error.hint}` }] };
  }
  log?.(error);
  return {
    isError: true,
    content: [{ type: 'text', text: 'Error (internal): the brain could not complete this call.\nHint: Try again; if it keeps failing, tell the user to check the server log.' }],
  };
}
