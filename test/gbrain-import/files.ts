// Helpers for the round-trip tests: a scratch copy of the fixture brain with the files
// git cannot be trusted to keep as bytes (CRLF, mixed endings, BOM, invalid UTF-8), and
// byte-for-byte comparison of two directory trees.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { listFiles } from '../../bench/gbrain/list-files.js';

export { listFiles };

export const FIXTURE = new URL('../fixtures/gbrain/brain', import.meta.url).pathname;

/** Files written by the test itself, byte for byte. */
export const EXTRA_FILES: Record<string, Buffer> = {
  'people/crlf-person.md': Buffer.from(
    '---\r\ntitle: CRLF Person\r\ntags: [windows]\r\n---\r\n\r\n# CRLF Person\r\n\r\nWorks with [Brex](../companies/brex.md).\r\n\r\n---\r\n\r\n- **2024-04-01** | call — Weekly call.\r\n  Detail on a CRLF line.\r\n',
    'utf8',
  ),
  'concepts/mixed-endings.md': Buffer.from('---\ntitle: Mixed\r\n---\r\n\nLine one\r\nLine two\n\n---\r\n\n- **2024-05-01** | manual — Mixed endings.\n', 'utf8'),
  'companies/bom-co.md': Buffer.from('\uFEFF---\ntitle: BOM Co\ntype: company\n---\n\n> Makes byte order marks.\n\nBody with a BOM.\n', 'utf8'),
  'concepts/latin1.md': Buffer.concat([Buffer.from('---\ntitle: Latin-1\n---\n\nCaf', 'utf8'), Buffer.from([0xe9]), Buffer.from(' au lait.\n', 'utf8')]),
  'people/.raw/crlf-person.json': Buffer.from('{\r\n  "sources": {\r\n    "crustdata": {"name": "CRLF Person"},\r\n    "exa": {"results": [1, 2]}\r\n  }\r\n}\r\n', 'utf8'),
};

export async function scratchBrain(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gbrain-src-'));
  await cp(FIXTURE, dir, { recursive: true });
  for (const [rel, bytes] of Object.entries(EXTRA_FILES)) await writeFile(join(dir, rel), bytes);
  return dir;
}

/** The paths whose bytes differ between two trees, and the paths only one of them has. */
export async function compareTrees(a: string, b: string): Promise<{ onlyA: string[]; onlyB: string[]; different: string[] }> {
  const fa = await listFiles(a);
  const fb = await listFiles(b);
  const different: string[] = [];
  for (const f of fa.filter((x) => fb.includes(x))) {
    if (!(await readFile(join(a, f))).equals(await readFile(join(b, f)))) different.push(f);
  }
  return { onlyA: fa.filter((x) => !fb.includes(x)), onlyB: fb.filter((x) => !fa.includes(x)), different };
}

/**
 * Temporary directories for one test file, all removed after its tests: `make(prefix)` creates
 * one, `keep(dir)` adds one made elsewhere (a scratch brain).
 */
export function tempDirs(): { make: (prefix: string) => Promise<string>; keep: (dir: string) => string } {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const keep = (dir: string) => (dirs.push(dir), dir);
  return { make: async (prefix) => keep(await mkdtemp(join(tmpdir(), prefix))), keep };
}
