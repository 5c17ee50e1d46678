// The user-service files, parsed back the way systemd and launchd read them: the command is this
// install's Node and brain.js running `up`, in the install's folder, with BRAIN_HOME absolute and
// the brain's variables (never the admin URL), restarted on failure only; odd characters in paths
// survive the quoting. Where systemd-analyze or Python's plistlib is installed, they check too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../config/environment.js';
import { LAUNCHD_LABEL, NOT_CARRIED, renderLaunchdPlist, renderSystemdUnit, serviceSpec, servicePlan } from '../../services/deploy/service-files.js';

/** systemd's reading of a unit: sections of key → values (a key may repeat), words unquoted and unescaped. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const head = /^\[(\w+)\]$/.exec(line);
    if (head) {
      section = out[head[1]!] = {};
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!kv || !section) throw new Error(`not a unit line: ${line}`);
    (section[kv[1]!] ??= []).push(kv[2]!);
  }
  return out;
}

/** Splits a value into words as systemd does: double quotes group, C escapes, then %% and (exec) $$. */
function words(value: string, exec: boolean): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|((?:[^\s"\\]|\\.)+)/g;
  for (const m of value.matchAll(re)) {
    let w = (m[1] ?? m[2]!).replace(/\\(.)/g, '$1').replace(/%%/g, '%');
    if (exec) w = w.replace(/\$\$/g, '$');
    out.push(w);
  }
  return out;
}

/** A strict reader for the plist subset we write: dict, array, key, string, integer, true, false. */
function parsePlist(text: string): unknown {
  const body = /<plist version="1\.0">\s*([\s\S]*)\s*<\/plist>\s*$/.exec(text.replace(/<!--[\s\S]*?-->/g, ''))?.[1];
  if (!body) throw new Error('no <plist> element');
  const tokens = [...body.matchAll(/<(\/?)(\w+)(\/?)>|([^<]+)/g)].filter((m) => m[4] === undefined || m[4].trim() !== '');
  let i = 0;
  const text2 = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  const leaf = (tag: string): string => {
    const t = tokens[i]!;
    let v = '';
    if (t[4] !== undefined) {
      v = text2(t[4]);
      i++;
    }
    const close = tokens[i++]!;
    if (close[1] !== '/' || close[2] !== tag) throw new Error(`expected </${tag}>`);
    return v;
  };
  const value = (): unknown => {
    const t = tokens[i++]!;
    if (t[1] || t[4] !== undefined) throw new Error(`unexpected ${t[0]}`);
    if (t[3]) {
      if (t[2] === 'true') return true;
      if (t[2] === 'false') return false;
      throw new Error(`unexpected <${t[2]}/>`);
    }
    switch (t[2]) {
      case 'string':
        return leaf('string');
      case 'integer':
        return Number(leaf('integer'));
      case 'array': {
        const a: unknown[] = [];
        while (!(tokens[i]![1] === '/' && tokens[i]![2] === 'array')) a.push(value());
        i++;
        return a;
      }
      case 'dict': {
        const d: Record<string, unknown> = {};
        while (!(tokens[i]![1] === '/' && tokens[i]![2] === 'dict')) {
          if (tokens[i++]![2] !== 'key') throw new Error('a dict holds key, value pairs');
          const k = leaf('key');
          d[k] = value();
        }
        i++;
        return d;
      }
      default:
        throw new Error(`unexpected <${t[2]}>`);
    }
  };
  const root = value();
  if (i !== tokens.length) throw new Error('trailing content after the root dict');
  return root;
}

const ODD = '/tmp/brain 50% "$HOME" & <co>';
const env = {
  BRAIN_HOME: 'ignored, the resolved home wins',
  BRAIN_CONFIG_DIR: 'conf',
  BRAIN_EMBEDDER: 'offline',
  BRAIN_LOG_LEVEL: 'info',
  BRAIN_ADMIN_URL: 'postgres://postgres:secret@db:5432/brain',
  BRAIN_OPEN_DAMAGED: '1',
  BRAIN_SUBJECT: 'homelab',
  BRAIN_OLLAMA_MODEL: '',
  HOME: '/home/someone',
  UNRELATED: 'x',
};
const spec = serviceSpec({ node: '/opt/node 24/bin/node', brainJs: `${ODD}/dist/cli/brain.js`, cwd: ODD, home: `${ODD}/.brain`, env });

describe('service spec', () => {
  it('carries the brain variables that concern brain up, paths made absolute, never the admin URL', () => {
    expect(spec.environment).toEqual({
      BRAIN_CONFIG_DIR: `${ODD}/conf`,
      BRAIN_EMBEDDER: 'offline',
      BRAIN_HOME: `${ODD}/.brain`,
      BRAIN_LOG_LEVEL: 'info',
      // What bin/brain sets for a command run by hand; the service runs Node itself.
      MALLOC_ARENA_MAX: '2',
      MALLOC_TRIM_THRESHOLD_: '131072',
      PATH: '/opt/node 24/bin:/usr/local/bin:/usr/bin:/bin',
    });
    expect(serviceSpec({ node: '/n/node', brainJs: '/b.js', cwd: '/', home: '/h', env: { MALLOC_ARENA_MAX: '4', MALLOC_TRIM_THRESHOLD_: '65536' } }).environment).toMatchObject({ MALLOC_ARENA_MAX: '4', MALLOC_TRIM_THRESHOLD_: '65536' });
    for (const name of NOT_CARRIED) expect(ENVIRONMENT_VARIABLES).toContain(name);
  });
});

describe('systemd user unit', () => {
  const unit = parseUnit(renderSystemdUnit(spec));

  it('runs `brain up` with this Node in the install folder, restarting on failure', () => {
    expect(words(unit.Service!.ExecStart![0]!, true)).toEqual(['/opt/node 24/bin/node', '--max-semi-space-size=4', `${ODD}/dist/cli/brain.js`, 'up']);
    // A path, not words: only specifiers (%) are escaped.
    expect(unit.Service!.WorkingDirectory).toHaveLength(1);
    expect(unit.Service!.WorkingDirectory![0]!.replace(/%%/g, '%')).toBe(ODD);
    expect(unit.Service).toMatchObject({ Type: ['simple'], Restart: ['on-failure'], RestartSec: ['5'], KillSignal: ['SIGTERM'] });
    expect(Number(unit.Service!.TimeoutStopSec![0])).toBeGreaterThan(10);
    expect(unit.Install).toEqual({ WantedBy: ['default.target'] });
    expect(unit.Unit).toMatchObject({ StartLimitBurst: ['5'] });
  });

  it('sets exactly the spec environment, each variable once, values unchanged', () => {
    const got = Object.fromEntries(unit.Service!.Environment!.map((e) => words(e, false)).map(([w]) => [w!.slice(0, w!.indexOf('=')), w!.slice(w!.indexOf('=') + 1)]));
    expect(got).toEqual(spec.environment);
    expect(unit.Service!.Environment).toHaveLength(Object.keys(spec.environment).length);
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  it.skipIf(analyze.status !== 0)('systemd-analyze verify accepts it without a warning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'brain-unit-'));
    try {
      // verify checks that ExecStart's program exists: point it at this Node.
      const file = join(dir, 'claude-brain.service');
      writeFileSync(file, renderSystemdUnit({ ...spec, node: process.execPath }));
      const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 30_000 });
      expect(r.stderr.split('\n').filter((l) => l.includes('claude-brain.service'))).toEqual([]);
      expect(r.status, r.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('launchd agent', () => {
  const text = renderLaunchdPlist(spec, '/Users/someone/Library/Logs/claude-brain.log');
  const plist = parsePlist(text) as Record<string, unknown>;

  it('runs `brain up` with this Node in the install folder, kept alive only after a failure', () => {
    expect(plist).toMatchObject({
      Label: LAUNCHD_LABEL,
      ProgramArguments: ['/opt/node 24/bin/node', '--max-semi-space-size=4', `${ODD}/dist/cli/brain.js`, 'up'],
      WorkingDirectory: ODD,
      EnvironmentVariables: spec.environment,
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      StandardErrorPath: '/Users/someone/Library/Logs/claude-brain.log',
    });
    expect(plist.ExitTimeOut).toBeGreaterThan(10);
  });

  const python = spawnSync('python3', ['-c', 'import plistlib'], { encoding: 'utf8' });
  it.skipIf(python.status !== 0)("Python's plistlib reads the same values", () => {
    const r = spawnSync('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], { input: text, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(plist);
  });
});

describe('service plan', () => {
  it('puts each file where its service manager looks, with the commands to load and unload it', () => {
    const linux = servicePlan('linux', spec, { home: '/home/u', uid: 1000 });
    expect(linux.file).toBe('/home/u/.config/systemd/user/claude-brain.service');
    expect(linux.install).toEqual([
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'claude-brain.service'],
    ]);
    expect(servicePlan('linux', spec, { home: '/home/u', uid: 1000, xdgConfigHome: '/xdg' }).file).toBe('/xdg/systemd/user/claude-brain.service');
    const mac = servicePlan('darwin', spec, { home: '/Users/u', uid: 501 });
    expect(mac.file).toBe(`/Users/u/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`);
    expect(mac.install).toEqual([['launchctl', 'bootstrap', 'gui/501', mac.file]]);
    expect(mac.uninstall).toEqual([['launchctl', 'bootout', `gui/501/${LAUNCHD_LABEL}`]]);
    expect((parsePlist(mac.content) as { StandardOutPath: string }).StandardOutPath).toBe('/Users/u/Library/Logs/claude-brain.log');
  });
});
