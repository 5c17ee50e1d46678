// A tool's arguments are checked here, not by the SDK: its own message ("Input validation
// error: Invalid arguments for tool upcast: reason: Invalid input: expected string, received
// undefined") reaches the model as a protocol error with no hint. Ours is a tool result of
// the one shape every failure has: `Error (invalid_input): TOOL: FIELD: what is wrong` and a
// `Hint:` naming the field as the tool spells it. The MCP servers and `brain call`/`pipe`
// both parse through parseToolArgs.
import type { z } from 'zod';
import { BrainError } from '../knowledge/errors.js';
import { fieldPath } from '../knowledge/schemas.js';

type Issue = z.core.$ZodIssue;

function article(expected: string): string {
  if (expected === 'array') return 'a list';
  if (expected === 'object') return 'an object';
  if (expected === 'integer' || expected === 'int') return 'a whole number';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** What is wrong with one field, in words a model can act on. */
function problem(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `is required (${article(issue.expected)})` : `must be ${article(issue.expected)}, not ${typeOf(issue.input)}`;
    case 'invalid_value': {
      const values = issue.values.map((v) => JSON.stringify(v)).join(', ');
      return issue.input === undefined ? `is required (one of ${values})` : `must be one of ${values}`;
    }
    case 'unrecognized_keys':
      return `has fields this tool does not take: ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

/** At most this many problems are named in one error. */
const SHOWN = 5;

/** Parses a tool's arguments with its schema, or throws invalid_input naming every bad field (up to SHOWN). */
export function parseToolArgs<S extends z.ZodType>(tool: string, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  const named = parsed.error.issues.map((issue) => ({ field: issue.path.length ? fieldPath(issue.path as (string | number)[]) : 'arguments', issue }));
  const lines = named.slice(0, SHOWN).map(({ field, issue }) => `${field}: ${problem(issue)}`);
  if (named.length > SHOWN) lines.push(`and ${named.length - SHOWN} more`);
  const fields = [...new Set(named.map((n) => n.field))].filter((f) => f !== 'arguments');
  const shown = fields.length ? fields.slice(0, SHOWN).map((f) => `"${f}"`).join(', ') : 'the arguments';
  throw new BrainError('invalid_input', `${tool}: ${lines.join('; ')}`, `Fix ${shown} and call ${tool} again; the tool's input schema lists every field and its type.`, {
    details: { field: fields[0] ?? 'arguments' },
  });
}

/**
 * A domain error in the tool's words. The services name fields as they spell them
 * (`record episode: sourceLabel: ...`); a tool may pass some under another name (record's
 * `source`, list's `since`, history's `restore`, an episode's `body` in propose). An
 * invalid_input naming a field becomes `TOOL: FIELD: what is wrong`, with the field as the
 * tool spells it, in the message, the hint and details.field. `names` maps a service's name
 * for a field to the tool's, for any segment of the path (items[0].detail -> items[0].body).
 */
export function inToolTerms(tool: string, names: Readonly<Record<string, string>>, error: unknown): unknown {
  if (!(error instanceof BrainError) || error.code !== 'invalid_input') return error;
  const field = error.details.field;
  if (typeof field !== 'string' || field === 'arguments') return error;
  const renamed = field.replace(/[A-Za-z_$][\w$]*/g, (name) => (Object.hasOwn(names, name) ? names[name]! : name));
  const at = error.message.indexOf(`${field}: `);
  if (at === -1 && renamed === field) return error;
  const message = at === -1 ? error.message : `${tool}: ${renamed}: ${error.message.slice(at + field.length + 2)}`;
  if (message === error.message) return error;
  const hint = error.hint.split(`"${field}"`).join(`"${renamed}"`);
  return new BrainError(error.code, message, hint, { cause: error.cause ?? error, details: { ...error.details, field: renamed } });
}
