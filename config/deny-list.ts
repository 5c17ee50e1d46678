// deny-list.yaml: PII patterns, per-subject tokens and an allow list, compiled into the
// rules Postgres applies to every write into `personal` (see migrations/global/0002).
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './subjects.js';

const rule = z
  .object({
    label: z.string().trim().min(1),
    pattern: z.string().min(1),
    check: z.enum(['luhn']).optional(),
  })
  .strict();

const fileSchema = z
  .object({
    pii: z.record(z.string().regex(/^[a-z0-9-]+$/), rule).default({}),
    subjects: z.record(z.string(), z.array(z.string().trim().min(2, 'a token is at least 2 characters')).nullable()).default({}),
    allow: z.array(z.string().min(1)).nullable().default([]),
  })
  .strict();

export interface DenyRule {
  readonly id: number;
  readonly category: string;
  readonly label: string;
  readonly pattern: string;
  readonly check: 'luhn' | null;
}

export interface DenyList {
  readonly rules: readonly DenyRule[];
  /** One alternation of the escaped allowed strings, or '' when there are none. */
  readonly allowPattern: string;
}

/** Escapes a literal for a PostgreSQL ARE. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\.^$|?*+()[\]{}]/g, '\\$&');
}

function wordBounded(token: string): string {
  const start = /^\w/u.test(token) ? '\\m' : '';
  const end = /\w$/u.test(token) ? '\\M' : '';
  // Inner whitespace matches any run of whitespace, so a line break does not hide a name.
  return `${start}${escapeRegex(token).replace(/\s+/g, '\\s+')}${end}`;
}

export const SUBJECT_TOKEN_LABEL = 'a word tied to a project';

export function parseDenyList(text: string, file: string): DenyList {
  let raw: unknown;
  try {
    raw = parseDocument(text, { uniqueKeys: true }).toJS() ?? {};
  } catch (cause) {
    throw new ConfigError(`${file}: not valid YAML (${(cause as Error).message})`, { cause });
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  const rules: DenyRule[] = [];
  for (const [name, r] of Object.entries(parsed.data.pii)) {
    rules.push({ id: rules.length + 1, category: `pii:${name}`, label: r.label, pattern: r.pattern, check: r.check ?? null });
  }
  for (const [subject, tokens] of Object.entries(parsed.data.subjects)) {
    if (!tokens || tokens.length === 0) continue;
    rules.push({
      id: rules.length + 1,
      category: `subject-token:${subject}`,
      label: SUBJECT_TOKEN_LABEL,
      pattern: tokens.map((t) => `(?:${wordBounded(t)})`).join('|'),
      check: null,
    });
  }
  const allow = parsed.data.allow ?? [];
  return Object.freeze({ rules: Object.freeze(rules), allowPattern: allow.map(escapeRegex).join('|') });
}

export function loadDenyList(file: string): DenyList {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`${file}: cannot read the deny-list (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
  return parseDenyList(text, file);
}
