// `brain skills` and `brain service`, run as a user runs them, with a temporary HOME: skills land
// in HOME/.claude/skills (or --dir) under their own names and a second install changes nothing;
// the service file is printed, written and removed where the service manager looks, and no
// service manager command runs here (--print, --files-only).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { listSkills } from '../../services/deploy/skills.js';
import { runBrain, scratchConfigDir } from '../support/cli.js';

describe('brain skills and brain service (temporary HOME)', () => {
  let home: string;
  let configDir: string;
  let env: Record<string, string>;
  const brain = (args: string[], extra: Record<string, string> = {}) => runBrain(args, { ...env, ...extra });

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'brain-user-'));
    configDir = scratchConfigDir();
    env = { HOME: home, BRAIN_HOME: join(home, 'state'), BRAIN_CONFIG_DIR: configDir };
  });
  afterAll(() => {
    for (const d of [home, configDir]) rmSync(d, { recursive: true, force: true });
  });

  it('lists the shipped skills by the names Claude Code will show', () => {
    const shipped = readdirSync(join(PACKAGE_ROOT, 'skills'));
    const r = brain(['skills', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; description: string }[];
    expect(list).toHaveLength(shipped.length);
    for (const s of list) {
      expect(s.name).toMatch(/^brain-[a-z-]+$/);
      expect(s.description.length, s.name).toBeGreaterThan(40);
    }
  });

  it('skills install copies every skill into ~/.claude/skills under its name; again, nothing changes; an edited one is replaced', () => {
    const target = join(home, '.claude', 'skills');
    const first = brain(['skills', 'install']);
    expect(first.code, first.stderr).toBe(0);
    const skills = listSkills();
    for (const s of skills) {
      expect(readFileSync(join(target, s.name, 'SKILL.md'), 'utf8')).toBe(readFileSync(join(s.source, 'SKILL.md'), 'utf8'));
      expect(first.stdout).toMatch(new RegExp(`installed +${s.name} `));
    }
    expect(readdirSync(target).sort()).toEqual(skills.map((s) => s.name).sort());

    writeFileSync(join(target, skills[0]!.name, 'SKILL.md'), 'edited by hand\n');
    const again = JSON.parse(brain(['skills', 'install', '--json']).stdout) as { target: string; skills: { name: string; action: string }[] };
    expect(again.target).toBe(target);
    expect(again.skills.map((s) => s.action)).toEqual(skills.map((_, i) => (i === 0 ? 'updated' : 'unchanged')));
    expect(readFileSync(join(target, skills[0]!.name, 'SKILL.md'), 'utf8')).toBe(readFileSync(join(skills[0]!.source, 'SKILL.md'), 'utf8'));
  });

  it('skills install --dir puts them in a project instead', () => {
    const project = join(home, 'project', '.claude', 'skills');
    const r = brain(['skills', 'install', '--dir', project]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(project).length).toBe(listSkills().length);
    expect(brain(['skills', 'remove']).code).toBe(2);
  });

  it('service install --print shows the unit and the commands, and writes nothing', () => {
    const r = brain(['service', 'install', '--print', '--platform', 'linux'], { BRAIN_ADMIN_URL: 'postgres://postgres:hunter2@db/brain' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`# ${join(home, '.config', 'systemd', 'user', 'claude-brain.service')}`);
    expect(r.stdout).toMatch(/^ExecStart=\S+node\S* --max-semi-space-size=4 \S+\/dist\/cli\/brain\.js up$/m);
    expect(r.stdout).toContain(`Environment=BRAIN_HOME=${join(home, 'state')}`);
    expect(r.stdout).toContain(`Environment=BRAIN_CONFIG_DIR=${configDir}`);
    expect(r.stdout).not.toContain('hunter2');
    expect(r.stdout).toContain('systemctl --user enable --now claude-brain.service');
    expect(existsSync(join(home, '.config'))).toBe(false);

    const mac = brain(['service', 'install', '--print', '--platform', 'darwin']);
    expect(mac.code, mac.stderr).toBe(0);
    expect(mac.stdout).toContain('<key>Label</key><string>local.claude-brain</string>');
    expect(mac.stdout).toMatch(/launchctl bootstrap gui\/\d+ \S+\/Library\/LaunchAgents\/local\.claude-brain\.plist/);
    expect(existsSync(join(home, 'Library'))).toBe(false);
  });

  it('service install --files-only writes the file, status sees it, uninstall --files-only removes it', () => {
    const file = join(home, '.config', 'systemd', 'user', 'claude-brain.service');
    const printed = brain(['service', 'install', '--print', '--platform', 'linux']).stdout;
    const r = brain(['service', 'install', '--files-only', '--platform', 'linux']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Wrote ${file}`);
    expect(r.stdout).toContain('Run:\n  systemctl --user daemon-reload\n  systemctl --user enable --now claude-brain.service');
    expect(printed).toContain(readFileSync(file, 'utf8'));

    const status = brain(['service', 'status', '--json', '--platform', 'linux']);
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout) as { installed: boolean; file: string; servers: { subject: string; up: boolean }[] };
    expect(s).toMatchObject({ installed: true, file });
    expect(s.servers.map((x) => x.subject)).toContain('personal');

    const gone = brain(['service', 'uninstall', '--files-only', '--platform', 'linux']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stdout).toContain('systemctl --user disable --now claude-brain.service');
    expect(existsSync(file)).toBe(false);
    expect(brain(['service', 'status', '--platform', 'linux']).stdout).toMatch(/^Not installed/);
  });

  it('refuses to write a file for another platform, and --print with --files-only', () => {
    const other = process.platform === 'darwin' ? 'linux' : 'darwin';
    expect(brain(['service', 'install', '--platform', other]).code).toBe(2);
    expect(brain(['service', 'install', '--print', '--files-only']).code).toBe(2);
    expect(brain(['service', 'restart']).code).toBe(2);
  });
});
