// A new embedded brain in a temporary BRAIN_HOME, bootstrapped and closed cleanly (the close
// writes the snapshot of its files and the bootstrap's record), for tests that open it
// in-process through db/open.ts as a start does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRuntimeConfig, type RuntimeConfig } from '../../config/runtime.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { scratchConfigDir } from './cli.js';

export interface EmbeddedHome {
  home: string;
  configDir: string;
  rt: RuntimeConfig;
  /** Removes the BRAIN_HOME and the config folder. */
  remove(): void;
}

export async function newEmbeddedHome(prefix: string): Promise<EmbeddedHome> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const configDir = scratchConfigDir();
  const rt = loadRuntimeConfig({ BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none' });
  const remove = () => {
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  };
  try {
    const admin = await openAdmin(rt, { init: true });
    try {
      await runBootstrap(rt, admin);
    } finally {
      await admin.close();
    }
  } catch (error) {
    remove();
    throw error;
  }
  return { home, configDir, rt, remove };
}
