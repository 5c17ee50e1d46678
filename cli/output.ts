import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A usage or input error: exit code 2, message only. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (cause) {
    throw new CliError(`${(cause as Error).message}\nusage: ${usage}`, { cause });
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** A file's text (or stdin's, as 0), or a CliError naming what could not be read and why. */
export function readTextFile(file: string | 0, shownAs: string = file === 0 ? 'stdin' : file): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new CliError(`cannot read ${shownAs} (${(cause as NodeJS.ErrnoException).code ?? cause})`);
  }
}
