// The client configuration in docs/clients.md is valid JSON and points at the ports the
// subjects really use, the scopes it recommends are the ones it explains, the skills and
// service commands it shows exist with those options, and its links land on real headings,
// so the documented steps stay true.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { service } from '../cli/commands/service.js';
import { skills } from '../cli/commands/skills.js';
import { PACKAGE_ROOT } from '../config/runtime.js';
import { loadSubjects } from '../config/subjects.js';
import { listSkills } from '../services/deploy/skills.js';

const doc = readFileSync(join(PACKAGE_ROOT, 'docs', 'clients.md'), 'utf8');
const cfg = loadSubjects(join(PACKAGE_ROOT, 'subjects.yaml'));

it('every JSON block in docs/clients.md parses and names real subjects on their real ports', () => {
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  for (const block of blocks) {
    const servers = (JSON.parse(block) as { mcpServers: Record<string, { url?: string; args?: string[] }> }).mcpServers;
    for (const [name, entry] of Object.entries(servers)) {
      const subject = cfg.subjects.find((s) => `brain-${s.name}` === name);
      expect(subject, name).toBeDefined();
      const url = entry.url ?? entry.args?.find((a) => a.startsWith('http'));
      if (url) expect(url).toBe(`http://127.0.0.1:${subject!.port}/mcp`);
    }
  }
});

describe('claude mcp add lines', () => {
  const lines = [...doc.matchAll(/claude mcp add((?: -s \w+| --scope \w+)*) --transport http (brain-\w+) (\S+)/g)].map(([, options, name, url]) => ({
    scope: /(?:-s|--scope) (\w+)/.exec(options!)?.[1] ?? 'local',
    name: name!,
    url: url!,
  }));

  it('use a real subject and port', () => {
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const { name, url } of lines) {
      const subject = cfg.subjects.find((s) => `brain-${s.name}` === name);
      expect(subject, name).toBeDefined();
      expect(url).toBe(`http://127.0.0.1:${subject!.port}/mcp`);
    }
  });

  it('give personal user scope and never a project subject user scope, with the three scopes explained', () => {
    const personal = cfg.subjects.find((s) => s.isPersonal)!;
    expect(lines.filter((l) => l.name === `brain-${personal.name}`).map((l) => l.scope)).toContain('user');
    expect(lines.filter((l) => l.name !== `brain-${personal.name}` && l.scope === 'user')).toEqual([]);
    for (const scope of ['local', 'user', 'project']) expect(doc).toContain(`-s ${scope}`);
    expect(doc).toMatch(/local \(the default\)/);
  });
});

it('the skills and service commands shown exist, with the options shown', () => {
  const skillLines = [...doc.matchAll(/^brain skills install((?: --\w+(?: \S+)?)*)/gm)].map((m) => m[1]!.trim());
  expect(skillLines).toContain('');
  expect(skillLines.some((l) => l.startsWith('--dir '))).toBe(true);
  for (const l of skillLines) for (const [option] of l.matchAll(/--\w+/g)) expect(skills.usage, option).toContain(option);
  // "five Claude Code skills (session close, ingest, ...)": the count and each skill's folder.
  const shipped = listSkills();
  const [, count, names] = /`skills\/` holds (\w+) Claude Code skills \(([^)]*)\)/.exec(doc) ?? [];
  expect(['one', 'two', 'three', 'four', 'five', 'six', 'seven'].indexOf(count!) + 1).toBe(shipped.length);
  expect(names!.split(', ').sort()).toEqual(shipped.map((s) => s.source.split('/').pop()!.replace(/-/g, ' ')).sort());
  expect(service.usage).toContain('install');
});

it.each([['docs/clients.md'], ['docs/deploy.md'], ['README.md']])('every relative link with an anchor in %s lands on a heading of its file', (from) => {
  // GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
  const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
  const text = readFileSync(join(PACKAGE_ROOT, from), 'utf8');
  const links = [...text.matchAll(/\]\(([\w./-]*)#([\w-]+)\)/g)];
  expect(links.length).toBeGreaterThanOrEqual(1);
  for (const [, file, anchor] of links) {
    const target = join(PACKAGE_ROOT, file ? join(dirname(from), file) : from);
    expect(existsSync(target), `${file} from ${from}`).toBe(true);
    const headings = [...readFileSync(target, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
    expect(headings, `${file}#${anchor} from ${from}`).toContain(anchor);
  }
});
