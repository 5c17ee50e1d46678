// The Dockerfile and .dockerignore, read as Docker would read them: the properties the image
// depends on (the stages, the user, the health check, what reaches the final stage, that
// nothing secret is ever in the build context). What the built server really reads at run
// time is traced in runtime-paths.test.ts; the image itself is built and run by .ci/run.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { instructions, readDockerfile } from '../support/dockerfile.js';
import { sourceFiles } from '../support/source-files.js';

const stages = readDockerfile();
const final = stages.at(-1)!;
const all = instructions;

describe('Dockerfile', () => {
  it('is multi-stage on node:24-slim throughout', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.from, s.name).toBe('node:24-slim');
  });

  it('builds with every dependency, but the final stage gets production dependencies only', () => {
    const build = stages.find((s) => all(s, 'RUN').some((r) => /tsc -p tsconfig\.image\.json/.test(r.args)))!;
    expect(all(build, 'RUN').some((r) => /^npm ci\b/.test(r.args) && !r.args.includes('--omit=dev'))).toBe(true);
    const copies = all(final, 'COPY');
    const modules = copies.filter((c) => /node_modules/.test(c.args));
    expect(modules).toHaveLength(1);
    const source = /--from=(\S+)/.exec(modules[0]!.args)?.[1];
    const deps = stages.find((s) => s.name === source)!;
    expect(deps, 'node_modules comes from a named stage').toBeDefined();
    expect(all(deps, 'RUN').map((r) => r.args).join('\n')).toMatch(/npm ci --omit=dev/);
    expect(source).not.toBe(build.name);
    // From the build stage only the compiled output crosses over.
    for (const c of copies.filter((x) => x.args.includes(`--from=${build.name}`))) expect(c.args).toMatch(/\/dist \.\/dist$/);
  });

  it('runs no command in the final stage, so its files stay root-owned and read-only to the app', () => {
    expect(all(final, 'RUN')).toEqual([]);
  });

  it('has no `# syntax=` line, which makes BuildKit fetch a frontend from Docker Hub (offline builds fail)', () => {
    expect(readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')).not.toMatch(/^#\s*syntax\s*=/im);
  });

  it('runs as a non-root user', () => {
    const users = all(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('needs no writable root filesystem: HOME and the npm cache live in /tmp', () => {
    const env = all(final, 'ENV').map((e) => e.args).join(' ');
    expect(env).toMatch(/\bHOME=\/tmp\b/);
    expect(env).toMatch(/\bNPM_CONFIG_CACHE=\/tmp\//);
  });

  it('has a node health check on the subject port and the brain CLI as entrypoint', () => {
    const [hc] = all(final, 'HEALTHCHECK');
    expect(hc?.args).toMatch(/CMD \["node", "dist\/services\/deploy\/healthcheck\.js", "\/healthz"\]/);
    expect(existsSync(join(PACKAGE_ROOT, 'services/deploy/healthcheck.ts'))).toBe(true);
    expect(all(final, 'ENTRYPOINT').at(-1)?.args).toBe('["node", "dist/cli/brain.js"]');
  });
});

describe('the image build (tsconfig.image.json)', () => {
  it('compiles with nothing from outside its folders: a relative import of test/ or bench/ fails the image build, which has neither', () => {
    const build = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.image.json'), 'utf8')) as { include: string[] };
    const files = build.include.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    const outside: string[] = [];
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = relative(PACKAGE_ROOT, resolve(dirname(file), m[1]!));
        if (!build.include.some((dir) => target === dir || target.startsWith(`${dir}/`))) outside.push(`${relative(PACKAGE_ROOT, file)} -> ${m[1]}`);
      }
    }
    expect(outside).toEqual([]);
    expect(readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')).toContain('RUN npx tsc -p tsconfig.image.json');
  });
});

describe('.dockerignore', () => {
  const rules = readFileSync(join(PACKAGE_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const allowed = new Set(rules.filter((r) => r.startsWith('!')).map((r) => r.slice(1).replace(/\/$/, '')));

  it('is an allowlist: everything is excluded first, so .brain/ (secrets) and .git never reach the daemon', () => {
    expect(rules[0]).toBe('*');
    for (const never of ['.brain', '.git', 'node_modules', 'dist', 'test', '.env']) expect(allowed.has(never), never).toBe(false);
  });

  it('lets in every directory the build compiles and every file the Dockerfile copies by name', () => {
    const build = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.image.json'), 'utf8')) as { include: string[] };
    expect(build.include.length).toBeGreaterThan(0);
    for (const dir of build.include) expect(allowed.has(dir), `${dir} (tsconfig.image.json) is missing from .dockerignore`).toBe(true);
    const fromContext = stages
      .flatMap((s) => all(s, 'COPY'))
      .filter((c) => !c.args.includes('--from='))
      .flatMap((c) => c.args.split(/\s+/).slice(0, -1))
      .filter((src) => src !== '.');
    // A path is let in by its own rule or by one for a folder above it.
    const letIn = (src: string) => src.split('/').some((_, i, parts) => allowed.has(parts.slice(0, i + 1).join('/')));
    expect(fromContext.length).toBeGreaterThan(0);
    for (const src of fromContext) expect(letIn(src), `${src} is copied but not allowed into the context`).toBe(true);
  });
});
