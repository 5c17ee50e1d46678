// Builds dist/ once before the CLI and server tests run a child process.
import { execFileSync } from 'node:child_process';
import { PACKAGE_ROOT } from '../../config/runtime.js';

export function setup(): void {
  execFileSync(process.execPath, [`${PACKAGE_ROOT}/node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
}
