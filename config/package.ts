// The installed package: where it lives and its version, from package.json, read once.
// Nothing else is imported here, so `brain version` and `brain --help` load this without zod,
// YAML or a database; the MCP servers report the same version (services/mcp/server.ts).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding package.json, subjects.yaml, kinds.yaml, deny-list.yaml. */
export const PACKAGE_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the claude-brain package root');
    dir = up;
  }
  return dir;
})();

/** package.json's version: the one place it is written. */
export const VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
