// bin/brain, the `brain` command npm links: it runs dist/cli/brain.js with node, found through
// the symbolic links npm makes, with glibc's malloc kept to two arenas (MALLOC_ARENA_MAX) and a
// fixed trim threshold (MALLOC_TRIM_THRESHOLD_) unless the environment already says otherwise,
// and, for a command that runs a moment and exits, malloc's memory in huge pages (GLIBC_TUNABLES);
// the servers and import get a smaller young generation (--max-semi-space-size), import and export a heap that
// grows by half at most between full collections (--heap-growing-percent).
// What that does to memory is measured by the scale bench (docs/performance.md), not here.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';

const LAUNCHER = join(PACKAGE_ROOT, 'bin', 'brain');
const version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('bin/brain', () => {
  let dir: string;
  let linked: string;
  let fakeNodeDir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brain-launcher-'));
    // As npm installs a package: node_modules/.bin/brain -> ../claude-brain/bin/brain, and the
    // package itself a link too (npm link, a workspace).
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(PACKAGE_ROOT, join(dir, 'node_modules', 'claude-brain'));
    linked = join(dir, 'node_modules', '.bin', 'brain');
    symlinkSync('../claude-brain/bin/brain', linked);
    // A `node` that says how it was called instead of running anything.
    fakeNodeDir = join(dir, 'fake-node');
    mkdirSync(fakeNodeDir);
    writeFileSync(join(fakeNodeDir, 'node'), '#!/bin/sh\nprintf "%s\\n" "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX-unset} MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_-unset} GLIBC_TUNABLES=${GLIBC_TUNABLES-unset}" "$@"\n');
    chmodSync(join(fakeNodeDir, 'node'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (command: string, args: string[], env: NodeJS.ProcessEnv) => spawnSync(command, args, { encoding: 'utf8', env, timeout: 30_000 });
  const withoutMallocSettings = (): NodeJS.ProcessEnv => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_TRIM_THRESHOLD_;
    delete env.GLIBC_TUNABLES;
    return env;
  };

  it('runs the CLI through the links npm makes', () => {
    const r = run(linked, ['--version'], withoutMallocSettings());
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(`claude-brain ${version}`);
  });

  it('hands node the bundle and every argument, with two malloc arenas and a fixed trim threshold', () => {
    const env = { ...withoutMallocSettings(), PATH: `${fakeNodeDir}:${process.env.PATH ?? ''}` };
    const r = run(linked, ['search', 'two words', '--subject', 'homelab'], env);
    expect(r.status).toBe(0);
    const [malloc, script, ...args] = r.stdout.trimEnd().split('\n');
    expect(malloc).toBe('MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 GLIBC_TUNABLES=glibc.malloc.hugetlb=1');
    // The package's own bundle, reached through the links.
    expect(readFileSync(script!, 'utf8')).toBe(readFileSync(join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js'), 'utf8'));
    expect(args).toEqual(['search', 'two words', '--subject', 'homelab']);
  });

  it('keeps the malloc settings the environment already has', () => {
    const r = run(LAUNCHER, ['--version'], { ...process.env, PATH: `${fakeNodeDir}:${process.env.PATH ?? ''}`, MALLOC_ARENA_MAX: '4', MALLOC_TRIM_THRESHOLD_: '65536', GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' });
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('MALLOC_ARENA_MAX=4 MALLOC_TRIM_THRESHOLD_=65536 GLIBC_TUNABLES=glibc.malloc.tcache_count=0');
  });

  it("gives the servers a young generation of 4 MB a semi-space, unless NODE_OPTIONS sets one", () => {
    const env: NodeJS.ProcessEnv = { ...withoutMallocSettings(), PATH: `${fakeNodeDir}:${process.env.PATH ?? ''}` };
    delete env.NODE_OPTIONS;
    const servers = ['up', 'serve', 'view', 'pipe'].map((command) => run(linked, [command, '--subject', 'homelab'], env).stdout.trimEnd().split('\n').slice(1));
    expect(servers).toHaveLength(4);
    for (const [i, command] of ['up', 'serve', 'view', 'pipe'].entries()) {
      const [flag, script, ...args] = servers[i]!;
      expect(flag).toBe('--max-semi-space-size=4');
      expect(script!.endsWith(join('dist', 'cli', 'brain.js'))).toBe(true);
      expect(args).toEqual([command, '--subject', 'homelab']);
    }
    for (const command of ['search', 'embed', 'lint']) expect(run(linked, [command, 'x'], env).stdout.split('\n')[1]!.endsWith(join('dist', 'cli', 'brain.js'))).toBe(true);
    const own = run(linked, ['serve'], { ...env, NODE_OPTIONS: '--max-semi-space-size=16' }).stdout.split('\n');
    expect(own[1]!.endsWith(join('dist', 'cli', 'brain.js'))).toBe(true);
    expect(own[2]).toBe('serve');
  });

  it('lets the heap of import and export grow by half at most between full collections, and no other command', () => {
    const env: NodeJS.ProcessEnv = { ...withoutMallocSettings(), PATH: `${fakeNodeDir}:${process.env.PATH ?? ''}` };
    delete env.NODE_OPTIONS;
    const batch = ['import', 'export'].map((command) => run(linked, [command, 'dir'], env).stdout.trimEnd().split('\n').slice(1));
    expect(batch).toHaveLength(2);
    // import also gets the servers' young generation (a run's peak RSS, docs/performance.md); export does not.
    const flags: Record<string, string[]> = { import: ['--heap-growing-percent=50', '--max-semi-space-size=4'], export: ['--heap-growing-percent=50'] };
    for (const [i, command] of ['import', 'export'].entries()) {
      const words = batch[i]!;
      const n = flags[command]!.length;
      expect(words.slice(0, n)).toEqual(flags[command]);
      expect(words[n]!.endsWith(join('dist', 'cli', 'brain.js'))).toBe(true);
      expect(words.slice(n + 1)).toEqual([command, 'dir']);
    }
    const own = run(linked, ['import', 'dir'], { ...env, NODE_OPTIONS: '--max-semi-space-size=16' }).stdout.split('\n');
    expect(own[1]).toBe('--heap-growing-percent=50');
    expect(own[2]!.endsWith(join('dist', 'cli', 'brain.js'))).toBe(true);
    const others = ['serve', 'search', 'embed', 'lint', 'backup'].map((command) => run(linked, [command], env).stdout);
    expect(others).toHaveLength(5);
    for (const out of others) expect(out).not.toContain('--heap-growing-percent');
  });

  it('leaves huge pages out of the servers and batch commands, whose memory lives long', () => {
    const env = { ...withoutMallocSettings(), PATH: `${fakeNodeDir}:${process.env.PATH ?? ''}` };
    const long = ['up', 'serve', 'view', 'pipe', 'import', 'export', 'embed', 'lint', 'backup', 'restore'];
    const tunables = long.map((command) => run(linked, [command, '--help'], env).stdout.split('\n')[0]);
    expect(tunables).toHaveLength(10);
    expect(new Set(tunables)).toEqual(new Set(['MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 GLIBC_TUNABLES=unset']));
    expect(run(linked, ['get', 'a-card'], env).stdout.split('\n')[0]).toContain('GLIBC_TUNABLES=glibc.malloc.hugetlb=1');
  });
});
