// The one way a configuration YAML file is read: parse (duplicate keys and syntax errors
// are errors, not silently dropped), validate with zod, and name the file and the field.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './errors.js';

export function readConfigFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`${file}: cannot read the ${what} (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
}

export function parseYamlConfig<T extends z.ZodType>(text: string, file: string, schema: T): z.output<T> {
  const doc = parseDocument(text, { uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) throw new ConfigError(`${file}: not valid YAML (${problem.message.split('\n')[0]})`);
  const parsed = schema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A bad record key ("Invalid key in record") carries the rule it broke one level down.
    const inner = (issue as { issues?: { message: string }[][] | { message: string }[] }).issues?.flat()[0]?.message;
    throw new ConfigError(`${file}: ${issue.path.join('.') || '(top level)'}: ${inner ?? issue.message}`);
  }
  return parsed.data;
}
