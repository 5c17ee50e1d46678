// deny-list.yaml: PII patterns, per-subject tokens and an allow list, compiled into the
// rules Postgres applies to every write into `personal` (see migrations/global/0002).
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { parseYamlConfig, readConfigFile } from './yaml-file.js';

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
  const data = parseYamlConfig(text, file, fileSchema);
  const rules: DenyRule[] = [];
  for (const [name, r] of Object.entries(data.pii)) {
    rules.push({ id: rules.length + 1, category: `pii:${name}`, label: r.label, pattern: r.pattern, check: r.check ?? null });
  }
  for (const [subject, tokens] of Object.entries(data.subjects)) {
    if (!tokens || tokens.length === 0) continue;
    rules.push({
      id: rules.length + 1,
      category: `subject-token:${subject}`,
      label: SUBJECT_TOKEN_LABEL,
      pattern: tokens.map((t) => `(?:${wordBounded(t)})`).join('|'),
      check: null,
    });
  }
  const allow = data.allow ?? [];
  return Object.freeze({ rules: Object.freeze(rules), allowPattern: allow.map(escapeRegex).join('|') });
}

export function loadDenyList(file: string): DenyList {
  const text = readConfigFile(file, 'deny-list');
  return parseDenyList(text, file);
}
