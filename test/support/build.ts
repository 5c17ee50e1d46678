// Builds dist/ before the CLI and server tests run a child process, when a source is newer
// than its compiled file (scripts/build-if-stale.mjs, the same check `npm start` makes).
// BRAIN_TEST_SKIP_BUILD=1 skips it while iterating on tests that spawn nothing.
import { execFileSync } from 'node:child_process';
import { PACKAGE_ROOT } from '../../config/runtime.js';

export function setup(): void {
  if (process.env.BRAIN_TEST_SKIP_BUILD === '1') return;
  execFileSync(process.execPath, [`${PACKAGE_ROOT}/scripts/build-if-stale.mjs`], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
}
