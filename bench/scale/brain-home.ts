// A fresh BRAIN_HOME for one bench brain: its own subjects.yaml on free ports, the product's
// kinds.yaml and deny-list.yaml, and the environment every `brain` process of it runs with.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/package.js';

export const SUBJECT = 'homelab';
const SUBJECTS = ['personal', 'homelab', 'novel', 'book'];

export interface BenchHome {
  home: string;
  configDir: string;
  /** The homelab server's URL. */
  baseUrl: string;
  env: NodeJS.ProcessEnv;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** home/ and config/ under workDir. */
export async function prepareBenchHome(workDir: string): Promise<BenchHome> {
  const home = join(workDir, 'home');
  const configDir = join(workDir, 'config');
  mkdirSync(configDir, { recursive: true });
  const ports: number[] = [];
  for (const _ of SUBJECTS) ports.push(await freePort());
  writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n${SUBJECTS.map((s, i) => `  ${s}:\n    port: ${ports[i]}\n`).join('')}`);
  for (const f of ['kinds.yaml', 'deny-list.yaml']) copyFileSync(join(PACKAGE_ROOT, f), join(configDir, f));
  const baseUrl = `http://127.0.0.1:${ports[SUBJECTS.indexOf(SUBJECT)]}`;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_SUBJECT: SUBJECT, BRAIN_VIEW_PORT: 'off' };
  return { home, configDir, baseUrl, env };
}
