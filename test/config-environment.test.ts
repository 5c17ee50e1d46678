// Every environment variable is documented: README's configuration table lists exactly the
// variables config/environment.ts names, the code reads no variable outside that list, and the
// stack's table covers what brain-up.sh and the compose file read on the host.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, READ_WHERE_USED, SYSTEM_VARIABLES } from '../config/environment.js';
import { PACKAGE_ROOT } from '../config/package.js';
import { loadSubjects } from '../config/subjects.js';
import { renderCompose } from '../services/deploy/compose.js';
import { sourceFiles } from './support/source-files.js';

const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');

/** The variables in the first column of the table whose header row starts with `header`. */
function tableVariables(header: string): string[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${header} |`));
  expect(start, `README has a table headed "${header}"`).toBeGreaterThan(-1);
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const first = line.split('|')[1]!;
    names.push(...[...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
  }
  return names;
}

const code = ['cli', 'config', 'db', 'services'].flatMap(sourceFiles).map((file) => ({ file: relative(PACKAGE_ROOT, file), text: readFileSync(file, 'utf8') }));
/** `process.env.X`, `env.X`, `source.X` and `...env['X']`: how the code reads a variable. */
const READ = /(?:process\.env|\benv|\bsource)(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g;

describe('environment variables', () => {
  const documented = tableVariables('variable');
  const stack = tableVariables('stack variable');

  it("README's table lists exactly the variables config/environment.ts names, each once", () => {
    expect(documented.length).toBeGreaterThanOrEqual(20);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...ENVIRONMENT_VARIABLES].sort());
  });

  it('the code reads no variable outside the lists, and each one read where it is used where the list says', () => {
    const reads = code.flatMap(({ file, text }) => [...text.matchAll(READ)].map((m) => ({ file, name: (m[1] ?? m[2])! })));
    expect(reads.length).toBeGreaterThan(5);
    expect(reads.filter((r) => !ENVIRONMENT_VARIABLES.includes(r.name) && !(r.name in SYSTEM_VARIABLES))).toEqual([]);
    for (const [name, where] of Object.entries({ ...READ_WHERE_USED, ...SYSTEM_VARIABLES })) {
      for (const file of where.split(', ')) expect(reads, `${name} in ${file}`).toContainEqual({ file, name });
      expect([...new Set(reads.filter((r) => r.name === name).map((r) => r.file))].sort(), name).toEqual(where.split(', ').sort());
    }
  });

  it("README names the system's variables the code reads, below its table", () => {
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('stack variable'));
    for (const name of Object.keys(SYSTEM_VARIABLES)) expect(section, name).toContain(`\`${name}\``);
  });

  it('no BRAIN_ name appears in the code that neither table documents', () => {
    const known = new Set([...documented, ...stack]);
    const unknown = code.flatMap(({ file, text }) => [...text.matchAll(/\bBRAIN_[A-Z0-9_]+\b/g)].filter((m) => !known.has(m[0])).map((m) => `${file}: ${m[0]}`));
    expect(unknown).toEqual([]);
  });

  it("the stack's table covers exactly what brain-up.sh and the compose file read on the host", () => {
    const script = readFileSync(join(PACKAGE_ROOT, 'brain-up.sh'), 'utf8');
    const compose = renderCompose(loadSubjects(join(PACKAGE_ROOT, 'subjects.yaml')));
    // `${NAME:-default}` or `$NAME` in the script and the compose file; the script's own
    // settings (exported to compose) are BRAIN_ names too.
    const hostReads = new Set([...`${script}\n${compose}`.matchAll(/\$\{?(BRAIN_[A-Z0-9_]+)/g)].map((m) => m[1]!));
    expect(hostReads.size).toBeGreaterThanOrEqual(6);
    const undocumented = [...hostReads].filter((n) => !stack.includes(n) && !documented.includes(n));
    expect(undocumented).toEqual([]);
    expect(stack.filter((n) => !hostReads.has(n))).toEqual([]);
  });
});
