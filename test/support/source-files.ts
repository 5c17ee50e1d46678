// The TypeScript files below a folder of the package, for tests that read the code itself.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/runtime.js';

/** Absolute paths of every `.ts` file below `dir` (relative to the package root). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}
