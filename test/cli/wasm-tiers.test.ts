// Which commands run PGlite's WebAssembly on Liftoff only (cli/wasm-tiers.ts): the short ones;
// servers and batch commands keep the optimising compiler. Every name in the long-running list
// is a real command, so renaming one cannot quietly move a server onto the baseline compiler.
import { describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands/index.js';
import { LONG_RUNNING, wasmTiersFor } from '../../cli/wasm-tiers.js';

describe('wasm tiers per command', () => {
  it('servers and batch commands keep the default tiers; one-shot commands run on Liftoff only', () => {
    for (const name of ['serve', 'up', 'view', 'import', 'export', 'embed', 'lint', 'backup', 'restore', 'init', 'pipe']) expect(wasmTiersFor(name), name).toBe('default');
    for (const name of ['search', 'query', 'get', 'list', 'stats', 'remember', 'call', 'tag', 'history']) expect(wasmTiersFor(name), name).toBe('liftoff only');
    expect(wasmTiersFor(undefined)).toBe('default');
  });

  it('names only commands that exist', () => {
    for (const name of LONG_RUNNING) expect(Object.hasOwn(commands, name), name).toBe(true);
  });
});
