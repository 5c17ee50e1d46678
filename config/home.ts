// Where the brain lives on this machine (BRAIN_HOME, default ./.brain): its own small module, so
// the CLI's first lines can look there (cli/early-compile.ts) without loading the whole config.
import { join, resolve } from 'node:path';

/** BRAIN_HOME's value, or `.brain` in the working directory when it is unset or empty. */
export function brainHome(value: string | undefined): string {
  return resolve(value || join(process.cwd(), '.brain'));
}
