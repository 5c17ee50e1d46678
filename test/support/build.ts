// Builds dist/ once before the CLI and server tests run a child process.
// BRAIN_TEST_SKIP_BUILD=1 skips it while iterating on tests that spawn nothing.
import { execFileSync } from 'node:child_process';
import { PACKAGE_ROOT } from '../../config/runtime.js';

export function setup(): void {
  if (process.env.BRAIN_TEST_SKIP_BUILD === '1') return;
  execFileSync(process.execPath, [`${PACKAGE_ROOT}/node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
}
