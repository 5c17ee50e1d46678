// Input shapes shared by the services, the MCP tools and the CLI: one definition each.
import { z } from 'zod';
import { BrainError } from './errors.js';

export const slug = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^/\s][^\s]*$/, 'a slug has no spaces and does not start with "/" (e.g. "tool/psycopg3" or "people/ada-lovelace")')
  .refine((s) => !s.includes('//') && !s.endsWith('/'), 'a slug has no empty path segments');

export const subjectRef = z.string().trim().min(1).max(40).optional();
export const kindName = z.string().trim().min(1).max(60);
export const reason = z.string().trim().min(1).max(2000).optional();
export const tag = z.string().trim().min(1).max(100);

/** The most characters a free JSON value (frontmatter, raw data) may take as JSON text. */
export const MAX_JSON_CHARS = 1_000_000;

/** A free JSON value no longer than MAX_JSON_CHARS as text (checkInput has capped its depth). */
export function jsonSized<T extends z.ZodType>(schema: T) {
  return schema.superRefine((value, ctx) => {
    const size = JSON.stringify(value ?? null)?.length ?? 0;
    if (size > MAX_JSON_CHARS) ctx.addIssue({ code: 'custom', message: `${size.toLocaleString('en')} characters as JSON; at most ${MAX_JSON_CHARS.toLocaleString('en')}` });
  });
}

/** Frontmatter is an object whose key order is kept (it is stored as json, not jsonb). */
export const frontmatter = jsonSized(z.record(z.string(), z.unknown()));

/** A date (YYYY-MM-DD) or an ISO 8601 timestamp, a real one (see calendarProblem). */
export const occurredAt = calendarDate(
  z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/, 'use YYYY-MM-DD or an ISO 8601 timestamp such as 2026-11-29T14:30:00Z'),
);

/** A search or list bound: a real date (YYYY-MM-DD, midnight UTC) or a timestamp with its offset. */
export const dateBound = calendarDate(
  z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/, 'use YYYY-MM-DD or an ISO 8601 timestamp with its offset, such as 2026-11-29T14:30:00Z'),
);

export const relation = z.enum(['mentions', 'relates-to', 'supersedes', 'upcast-of', 'derived-from']);

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  checkInput(input, what);
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // Named as the caller writes it (items[2].body), as the tools' own argument errors are; a
  // field that does not belong (date on a topic item) by its own path.
  const path = [...issue.path, ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])] as (string | number)[];
  const where = path.length ? fieldPath(path) : 'input';
  if (issue.code === 'unrecognized_keys') {
    throw new BrainError('invalid_input', `${what}: ${where}: is not taken here${issue.keys.length > 1 ? ` (nor ${issue.keys.slice(1).join(', ')})` : ''}`, `Leave out "${where}"; the input schema says which fields each part takes.`, { details: { field: where } });
  }
  throw new BrainError('invalid_input', `${what}: ${where}: ${issue.message}`, `Fix "${where}" and call again.`, { details: { field: where } });
}

// ---------------------------------------------------------------------------------------
// Input every string and JSON value must pass before it gets near the database, checked
// once for a whole input (the MCP tools' arguments, and every parseInput of the domain
// layer), so the answer is invalid_input naming the field instead of an internal error:
// - NUL characters: Postgres text cannot hold U+0000 (json and jsonb cannot either).
// - lone surrogates: half of a UTF-16 pair is not Unicode, and cannot be encoded as UTF-8.
// - nesting deeper than MAX_JSON_DEPTH: deep enough for any real document, shallow enough
//   that no recursive step (ours, the driver's, Postgres's) runs out of stack.
// - more than MAX_JSON_VALUES values in one input.
// - dates (fields named since, until, date, occurredAt, updatedSince outside free JSON)
//   that are not real calendar dates and times; see calendarProblem.

export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_VALUES = 100_000;
/** Free JSON fields: whatever they hold is data, whatever its keys are called. */
const FREE_JSON = new Set(['data', 'frontmatter']);
const DATE_FIELDS = new Set(['since', 'until', 'date', 'occurredAt', 'updatedSince']);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const DATE_HINT = 'Use a calendar date YYYY-MM-DD (years 0001 to 9999, e.g. 2026-11-29) or an ISO 8601 timestamp such as 2026-11-29T14:30:00Z.';

/** A field path as the caller wrote it: items[2].body, data.disks[1].model. */
export function fieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out || 'input';
}

/** The field a too-deep value belongs to: the argument, and its item when it is in a list (items[0].frontmatter). */
function ownerPath(path: readonly (string | number)[]): string {
  const out: (string | number)[] = [];
  for (const p of path) {
    out.push(p);
    if (typeof p === 'string' && out.length > 1) break;
    if (typeof p === 'string' && out.length === 1 && typeof path[1] !== 'number') break;
  }
  return fieldPath(out);
}

/** Why a string is not text the brain can store, or undefined. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains NUL characters (\\u0000), which cannot be stored';
  if (LONE_SURROGATE.test(s)) return 'contains a lone surrogate (half of a UTF-16 pair, e.g. \\uD800), which is not valid Unicode';
  return undefined;
}

function textHint(problem: string, where: string): string {
  return problem.startsWith('contains NUL')
    ? `Remove the NUL characters (\\u0000) from "${where}" and call again.`
    : `Remove the lone surrogate from "${where}", or send the whole character (both halves of the pair), and call again.`;
}

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * Why a date or timestamp in the ISO shape is not a real one (2025-13-01, 2025-02-30,
 * 0000-01-01, 25:00), or undefined. Years run from 0001 to 9999, also after moving a
 * timestamp to UTC. Strings of another shape are left to the field's own schema.
 */
export function calendarProblem(value: string): string | undefined {
  const m = SHAPE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, zone, zh, zm] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1) return `"${value}" is outside the years 0001 to 9999`;
  if (month < 1 || month > 12) return `"${value}" is not a calendar date (the month is ${mo})`;
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 1 : 0);
  if (day < 1 || day > days) return `"${value}" is not a calendar date (${y}-${mo} has ${days} days)`;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || (s !== undefined && Number(s) > 59))) return `"${value}" is not a valid time of day`;
  if (zone !== undefined && zh !== undefined && (Number(zh) > 14 || Number(zm) > 59)) return `"${value}" has an impossible UTC offset`;
  if (h !== undefined && zone !== undefined) {
    const utcYear = new Date(value.trim().replace(' ', 'T')).getUTCFullYear();
    if (Number.isFinite(utcYear) && (utcYear < 1 || utcYear > 9999)) return `"${value}" is outside the years 0001 to 9999 in UTC`;
  }
  return undefined;
}

/** Zod refinement for date fields: a real calendar date and time (see calendarProblem). */
export function calendarDate<T extends z.ZodType<string>>(schema: T) {
  return schema.superRefine((value, ctx) => {
    const problem = calendarProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * Checks a whole input (see above); throws invalid_input naming the first bad field.
 * Walks plain objects and arrays only, never deeper than MAX_JSON_DEPTH.
 */
export function checkInput(input: unknown, what: string): void {
  let values = 0;
  const fail = (where: string, message: string, hint: string): never => {
    throw new BrainError('invalid_input', `${what}: ${where}: ${message}`, hint, { details: { field: where } });
  };
  const walk = (value: unknown, path: (string | number)[], free: boolean): void => {
    if (++values > MAX_JSON_VALUES) fail(ownerPath(path), `more than ${MAX_JSON_VALUES.toLocaleString('en')} values in one call`, 'Send less at once: split the data over several calls.');
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) {
        const where = fieldPath(path);
        fail(where, problem, textHint(problem, where));
      }
      const key = path[path.length - 1];
      if (!free && typeof key === 'string' && DATE_FIELDS.has(key)) {
        const wrong = calendarProblem(value);
        if (wrong) fail(fieldPath(path), wrong, DATE_HINT);
      }
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const isArray = Array.isArray(value);
    if (!isArray && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return;
    if (path.length >= MAX_JSON_DEPTH) {
      const where = ownerPath(path);
      fail(where, `nested more than ${MAX_JSON_DEPTH} levels deep`, `Flatten "${where}" to at most ${MAX_JSON_DEPTH} levels of objects and arrays.`);
    }
    if (isArray) {
      value.forEach((v, i) => walk(v, [...path, i], free));
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const problem = textProblem(k);
      if (problem) {
        const where = fieldPath(path);
        fail(where, `a key ${problem}`, textHint(problem, where));
      }
      walk(v, [...path, k], free || FREE_JSON.has(k));
    }
  };
  walk(input, [], false);
}
