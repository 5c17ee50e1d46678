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

/** Frontmatter is an object whose key order is kept (it is stored as json, not jsonb). */
export const frontmatter = z.record(z.string(), z.unknown());

/** A date (YYYY-MM-DD) or an ISO 8601 timestamp. */
export const occurredAt = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/, 'use YYYY-MM-DD or an ISO 8601 timestamp such as 2026-11-29T14:30:00Z');

export const relation = z.enum(['mentions', 'relates-to', 'supersedes', 'upcast-of', 'derived-from']);

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : 'input';
  throw new BrainError('invalid_input', `${what}: ${where}: ${issue.message}`, `Fix "${where}" and call again.`, { details: { field: where } });
}
