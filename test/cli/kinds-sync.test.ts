// `brain kinds sync`, run as a user runs it (the built command in a child process), on an
// embedded brain and on the real server: it syncs kinds.yaml into the database now, says
// what changed, refuses to remove a kind still in use (with the count), and never creates
// a brain.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../../bench/scratch-database.js';
import { runBrain, scratchConfigDir } from '../support/cli.js';

interface Target {
  env: Record<string, string>;
  /** The server's brain.kinds, read directly (undefined for the embedded brain, which one process holds). */
  kindsInDatabase?: () => Promise<{ name: string; description: string }[]>;
}

function kindsFile(configDir: string): string {
  return join(configDir, 'kinds.yaml');
}

/** The same steps on either database. */
function syncScenario(label: string, setup: () => Promise<Target>, cleanup: () => Promise<void>, notYet: RegExp): void {
  describe(label, { timeout: 240_000 }, () => {
    let t: Target;
    beforeAll(async () => {
      t = await setup();
    });
    afterAll(cleanup);
    const brain = (args: string[]) => runBrain(args, t.env);
    const edit = (change: (yaml: string) => string) => {
      const file = kindsFile(t.env.BRAIN_CONFIG_DIR!);
      writeFileSync(file, change(readFileSync(file, 'utf8')));
    };

    it('before the brain exists: refused, nothing created', () => {
      const r = brain(['kinds', 'sync']);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toMatch(notYet);
      expect(r.stderr).toContain('brain init');
    });

    it('after init: nothing to do; a new kind and a new description are synced and named', async () => {
      expect(brain(['init']).code).toBe(0);
      const same = brain(['kinds', 'sync']);
      expect(same.code, same.stderr).toBe(0);
      expect(same.stdout).toMatch(/^The database already has the kinds of .*kinds\.yaml\.\n$/);

      edit((y) => y.replace(/^topic:\n/m, 'topic:\n  gadget: A device, and how it is set up.\n').replace(/^  tool: .*$/m, '  tool: A program or library.'));
      const r = brain(['kinds', 'sync', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ file: kindsFile(t.env.BRAIN_CONFIG_DIR!), added: ['gadget'], changed: ['tool'], removed: [] });
      if (t.kindsInDatabase) {
        const rows = await t.kindsInDatabase();
        expect(rows.filter((k) => k.name === 'gadget' || k.name === 'tool')).toEqual([
          { name: 'gadget', description: 'A device, and how it is set up.' },
          { name: 'tool', description: 'A program or library.' },
        ]);
      }
      // What the first sync wrote, the second finds there.
      expect(brain(['kinds', 'sync']).stdout).toMatch(/^The database already has the kinds/);
      const used = runBrain(['call', 'remember', JSON.stringify({ kind: 'gadget', title: 'Phone', body: 'The one with the cracked screen.' })], { ...t.env, BRAIN_SUBJECT: 'homelab' });
      expect(used.code, used.stderr + used.stdout).toBe(0);
      expect(used.stdout).toContain('homelab:gadget/phone');
    });

    it('removing a kind still in use is refused with the count, and changes nothing', async () => {
      edit((y) => y.replace(/^  gadget: .*\n/m, ''));
      const r = brain(['kinds', 'sync']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('kinds.yaml no longer lists kind "gadget", but 1 topic(s) still use it (homelab: 1); change their kind first, or keep the kind');
      if (t.kindsInDatabase) expect((await t.kindsInDatabase()).map((k) => k.name)).toContain('gadget');
    });
  });
}

let home: string;
let configDir: string;
syncScenario(
  '[pglite] brain kinds sync (CLI, embedded brain)',
  async () => {
    home = mkdtempSync(join(tmpdir(), 'brain-home-'));
    configDir = scratchConfigDir();
    return { env: { BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir } };
  },
  async () => {
    // The refusal before init created nothing; init did.
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  },
  /there is no embedded brain in .*data yet/,
);

const serverUrl = inject('pgAdminUrl');
let scratch: ScratchDatabase | undefined;
let serverHome: string;
let serverConfig: string;
let prefix: string;
if (serverUrl) {
  syncScenario(
    '[postgres] brain kinds sync (CLI, real server)',
    async () => {
      serverHome = mkdtempSync(join(tmpdir(), 'brain-home-'));
      serverConfig = scratchConfigDir();
      prefix = `k${Date.now().toString(36).slice(-5)}_`;
      const file = join(serverConfig, 'subjects.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^role_prefix: .*$/m, `role_prefix: ${prefix}`));
      scratch = await createScratchDatabase(serverUrl, 'brain_kinds');
      const s = scratch;
      return {
        env: { BRAIN_HOME: serverHome, BRAIN_CONFIG_DIR: serverConfig, BRAIN_DATABASE_URL: `postgres://${s.url.host}/${s.database}`, BRAIN_ADMIN_URL: s.url.toString() },
        kindsInDatabase: async () => (await s.admin.query<{ name: string; description: string }>('SELECT name, description FROM brain.kinds ORDER BY name')).rows,
      };
    },
    async () => {
      await scratch?.drop(prefix);
      rmSync(serverHome, { recursive: true, force: true });
      rmSync(serverConfig, { recursive: true, force: true });
    },
    /the database server has no brain yet/,
  );
} else {
  describe.skip('[postgres] brain kinds sync (CLI, real server)', () => {
    it('needs a Postgres server', () => undefined);
  });
}

describe('[pglite] brain kinds sync creates no brain', () => {
  it('leaves an absent data directory absent', () => {
    const h = mkdtempSync(join(tmpdir(), 'brain-home-'));
    const c = scratchConfigDir();
    try {
      const r = runBrain(['kinds', 'sync'], { BRAIN_HOME: h, BRAIN_CONFIG_DIR: c });
      expect(r.code).toBe(2);
      expect(existsSync(join(h, 'data'))).toBe(false);
    } finally {
      rmSync(h, { recursive: true, force: true });
      rmSync(c, { recursive: true, force: true });
    }
  });
});
