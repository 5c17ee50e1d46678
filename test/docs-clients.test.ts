// The client configuration in docs/clients.md is valid JSON and points at the ports the
// subjects really use, so the documented steps stay true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../config/runtime.js';
import { loadSubjects } from '../config/subjects.js';

const doc = readFileSync(join(PACKAGE_ROOT, 'docs', 'clients.md'), 'utf8');
const cfg = loadSubjects(join(PACKAGE_ROOT, 'subjects.yaml'));

it('every JSON block in docs/clients.md parses and names real subjects on their real ports', () => {
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(3);
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

it('every claude mcp add line uses a real subject and port', () => {
  const lines = [...doc.matchAll(/claude mcp add --transport http (brain-\w+) (\S+)/g)];
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const [, name, url] of lines) {
    const subject = cfg.subjects.find((s) => `brain-${s.name}` === name)!;
    expect(url).toBe(`http://127.0.0.1:${subject.port}/mcp`);
  }
});
