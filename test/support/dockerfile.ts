// The Dockerfile read as Docker reads it: continuation lines joined, comments dropped, ARG
// defaults substituted into FROM. Shared by the Dockerfile's static checks and the runtime
// path test, which lays out the final stage's files from its COPY lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/runtime.js';

export interface Instruction {
  op: string;
  args: string;
}
export interface Stage {
  from: string;
  name: string | undefined;
  body: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const ins = { op: op.toUpperCase(), args: rest };
    if (ins.op === 'FROM') {
      const [image = '', , name] = rest.replace(/\$\{(\w+)\}/g, (_, v: string) => args.get(v) ?? '').split(/\s+/);
      stages.push({ from: image, name, body: [] });
    } else if (ins.op === 'ARG' && stages.length === 0) {
      const [k = '', v = ''] = rest.split('=');
      args.set(k, v);
    } else {
      stages.at(-1)?.body.push(ins);
    }
  }
  return stages;
}

export const instructions = (stage: Stage, op: string): Instruction[] => stage.body.filter((i) => i.op === op);

export function readDockerfile(): Stage[] {
  return parseDockerfile(readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8'));
}

/** One COPY of the final stage: its sources (relative to their stage or the context) and where they land. */
export interface FinalCopy {
  from: string | undefined;
  sources: string[];
  dest: string;
}

export function finalStageCopies(stages: Stage[]): FinalCopy[] {
  return instructions(stages.at(-1)!, 'COPY').map((c) => {
    const words = c.args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });
}
