import { existsSync } from 'node:fs';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { chooseEmbedder } from '../../services/runtime/embedding.js';
import { parse, printJson } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain doctor [--json]';

interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

export const doctor: Command = {
  usage,
  summary: 'Check the configuration files, the database settings, the embedder and each subject server\'s readiness.',
  async run(args) {
    const { values } = parse(args, { json: { type: 'boolean' } }, usage);
    const checks: Check[] = [];
    const attempt = async (check: string, fn: () => Promise<string> | string) => {
      try {
        checks.push({ check, ok: true, detail: await fn() });
      } catch (error) {
        checks.push({ check, ok: false, detail: (error as Error).message });
      }
    };
    const rt = loadRuntimeConfig();
    let ports: { name: string; port: number }[] = [];
    await attempt('subjects.yaml', () => {
      const cfg = loadSubjects(rt.subjectsFile);
      ports = cfg.subjects.map((s) => ({ name: s.name, port: s.port }));
      return cfg.subjects.map((s) => `${s.name}:${s.port}`).join(', ');
    });
    await attempt('kinds.yaml', () => `${loadKinds(rt.kindsFile).length} kinds`);
    await attempt('deny-list.yaml', () => `${loadDenyList(rt.denyListFile).rules.length} rules`);
    await attempt('database', () => (rt.mode === 'embedded' ? `embedded brain in ${rt.dataDir}${existsSync(rt.dataDir) ? '' : ' (not created yet: brain init or npm start)'}` : 'server (BRAIN_DATABASE_URL)'));
    await attempt('embedder', async () => (await chooseEmbedder(rt)).reason);
    for (const { name, port } of ports) {
      await attempt(`server ${name}`, async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
        if (!res) return `not running on 127.0.0.1:${port}`;
        const body = (await res.json()) as { ready: boolean; problems?: string[] };
        if (!body.ready) throw new Error(`not ready: ${(body.problems ?? []).join('; ')}`);
        return `ready on 127.0.0.1:${port}`;
      });
    }
    if (values.json) printJson(checks);
    else process.stdout.write(`${checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`).join('\n')}\n`);
    return checks.every((c) => c.ok) ? 0 : 1;
  },
};
