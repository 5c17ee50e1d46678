// deny-list.yaml: PII patterns, per-subject tokens and an allow list, turned into the
// rules Postgres applies to every write into `personal` (migrations/global/0002 and 0009).
// Tokens and allowed strings are compiled inside Postgres (brain_private.deny_token_pattern,
// deny_allow_pattern), by the same folding the text goes through, when the bootstrap syncs
// them (db/sync-deny-list.ts); here they are only validated and kept as written.
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { parseYamlConfig, readConfigFile } from './yaml-file.js';

const rule = z
  .object({
    label: z.string().trim().min(1),
    pattern: z.string().min(1),
    check: z.enum(['luhn', 'ip', 'entropy']).optional(),
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
  /** A PII rule's regular expression; '' for a subject's tokens (compiled by Postgres). */
  readonly pattern: string;
  readonly check: 'luhn' | 'ip' | 'entropy' | null;
  /** A subject's tokens as written; null for a PII rule. */
  readonly tokens: readonly string[] | null;
}

export interface DenyList {
  readonly rules: readonly DenyRule[];
  /** Known-good strings, as written; removed from the folded text before it is scanned. */
  readonly allow: readonly string[];
}

export const SUBJECT_TOKEN_LABEL = 'a word tied to a project';

export function parseDenyList(text: string, file: string): DenyList {
  const data = parseYamlConfig(text, file, fileSchema);
  const rules: DenyRule[] = [];
  for (const [name, r] of Object.entries(data.pii)) {
    rules.push({ id: rules.length + 1, category: `pii:${name}`, label: r.label, pattern: r.pattern, check: r.check ?? null, tokens: null });
  }
  for (const [subject, tokens] of Object.entries(data.subjects)) {
    if (!tokens || tokens.length === 0) continue;
    rules.push({
      id: rules.length + 1,
      category: `subject-token:${subject}`,
      label: SUBJECT_TOKEN_LABEL,
      pattern: '',
      check: null,
      tokens: Object.freeze([...tokens]),
    });
  }
  return Object.freeze({ rules: Object.freeze(rules), allow: Object.freeze([...(data.allow ?? [])]) });
}

export function loadDenyList(file: string): DenyList {
  const text = readConfigFile(file, 'deny-list');
  return parseDenyList(text, file);
}
