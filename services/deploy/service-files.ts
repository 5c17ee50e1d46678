// The files that keep `brain up` running as a user service: a systemd user unit (Linux) or a
// launchd agent (macOS), and the commands that load, unload and inspect it. Pure functions of a
// ServiceSpec, so tests parse what they render; cli/commands/service.ts writes the file and runs
// the commands.
//
// The service runs `node --max-semi-space-size=4 dist/cli/brain.js up` with the absolute Node
// that ran the install (a GUI session or systemd does not see a shell's PATH, nvm's Node
// included), in the folder the install ran in, with BRAIN_HOME made absolute and the brain's
// variables as they were set then. It is restarted when it fails, not when it stops cleanly
// (`brain down`, a stop command).
import { dirname, join, resolve } from 'node:path';
import { ENVIRONMENT_VARIABLES } from '../../config/environment.js';

export type ServicePlatform = 'linux' | 'darwin';

export const SERVICE_NAME = 'claude-brain';
/** launchd's label, reverse-DNS by convention; `local.` as the brain has no domain of its own. */
export const LAUNCHD_LABEL = `local.${SERVICE_NAME}`;

/**
 * Variables never written into a service file: the admin URL holds a password (and `brain up`
 * does not use it), BRAIN_OPEN_DAMAGED is for one salvage run, not every restart, and
 * BRAIN_SUBJECT and BRAIN_PORT do not concern `brain up`.
 */
export const NOT_CARRIED = ['BRAIN_ADMIN_URL', 'BRAIN_OPEN_DAMAGED', 'BRAIN_SUBJECT', 'BRAIN_PORT'] as const;
/** Variables holding paths: made absolute against the install's working directory. */
const PATHS = ['BRAIN_HOME', 'BRAIN_CONFIG_DIR', 'BRAIN_SECRETS_DIR', 'BRAIN_ADMIN_URL_FILE', 'BRAIN_DB_PASSWORD_FILE', 'BRAIN_TOKEN_FILE'];

/** Node's flags for a server, as bin/brain gives `brain up`: a young generation of 4 MB a semi-space (bin/brain says why). */
const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/** The service's command line: Node, its flags, the CLI and `up`. */
function serviceCommand(spec: ServiceSpec): string[] {
  return [spec.node, ...SERVER_NODE_FLAGS, spec.brainJs, 'up'];
}

export interface ServiceSpec {
  /** Absolute path of the Node binary. */
  node: string;
  /** Absolute path of dist/cli/brain.js in this install. */
  brainJs: string;
  workingDirectory: string;
  /** Sorted by name. */
  environment: Record<string, string>;
}

/** What the service runs, from the install's process: its Node, its folder and its variables. */
export function serviceSpec(input: { node: string; brainJs: string; cwd: string; home: string; env: NodeJS.ProcessEnv }): ServiceSpec {
  const environment: Record<string, string> = {};
  for (const name of ENVIRONMENT_VARIABLES) {
    const value = input.env[name];
    if (!value || (NOT_CARRIED as readonly string[]).includes(name)) continue;
    environment[name] = PATHS.includes(name) ? resolve(input.cwd, value) : value;
  }
  // Always explicit: where the data is must not depend on the folder a service manager starts in.
  environment.BRAIN_HOME = input.home;
  // The Node binary's folder first: anything the brain spawns finds the same Node.
  environment.PATH = [dirname(input.node), '/usr/local/bin', '/usr/bin', '/bin'].filter((d, i, all) => all.indexOf(d) === i).join(':');
  // What bin/brain sets for a command run by hand (the service runs Node itself): glibc's malloc
  // with two arenas, not eight a core, and a fixed trim threshold, so freed memory goes back
  // (docs/performance.md#malloc-arenas). macOS ignores both.
  environment.MALLOC_ARENA_MAX = input.env.MALLOC_ARENA_MAX || '2';
  environment.MALLOC_TRIM_THRESHOLD_ = input.env.MALLOC_TRIM_THRESHOLD_ || '131072';
  return {
    node: input.node,
    brainJs: input.brainJs,
    workingDirectory: input.cwd,
    environment: Object.fromEntries(Object.entries(environment).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * One systemd word: quoted when needed, C escapes for `\\` and `"`, `%` doubled (specifiers);
 * in ExecStart `$` doubled too (variable expansion), which Environment= does not do.
 */
function systemdWord(s: string, exec: boolean): string {
  let escaped = s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (exec) escaped = escaped.replace(/\$/g, '$$$$');
  return /[\s"'\\;]/.test(s) ? `"${escaped}"` : escaped;
}

export function renderSystemdUnit(spec: ServiceSpec): string {
  const env = Object.entries(spec.environment).map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`, false)}`);
  return [
    '# Written by `brain service install`; `brain service uninstall` removes it.',
    '[Unit]',
    'Description=claude-brain: every subject\'s MCP server (brain up)',
    'After=network.target',
    // Five failed starts within five minutes (a data folder refused, a port taken): stop trying,
    // and `systemctl --user status` says so, rather than restarting forever.
    'StartLimitIntervalSec=300',
    'StartLimitBurst=5',
    '',
    '[Service]',
    'Type=simple',
    `WorkingDirectory=${spec.workingDirectory.replace(/%/g, '%%')}`,
    ...env,
    `ExecStart=${serviceCommand(spec).map((w) => systemdWord(w, true)).join(' ')}`,
    // brain up drains for at most 5 s after SIGTERM, then closes the database.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function renderLaunchdPlist(spec: ServiceSpec, logFile: string): string {
  const str = (s: string) => `<string>${xml(s)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `brain service install`; `brain service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...serviceCommand(spec).map((a) => `    ${str(a)}`),
    '  </array>',
    `  <key>WorkingDirectory</key>${str(spec.workingDirectory)}`,
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...Object.entries(spec.environment).map(([k, v]) => `    <key>${xml(k)}</key>${str(v)}`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    // Restarted when it exits with a failure, not after a clean stop (brain down, launchctl bootout).
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key><false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key><integer>10</integer>',
    // brain up drains for at most 5 s after SIGTERM, then closes the database.
    '  <key>ExitTimeOut</key><integer>30</integer>',
    `  <key>StandardOutPath</key>${str(logFile)}`,
    `  <key>StandardErrorPath</key>${str(logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

export interface ServicePlan {
  platform: ServicePlatform;
  /** The service manager's command, looked for on PATH before anything is run. */
  tool: 'systemctl' | 'launchctl';
  file: string;
  content: string;
  /** Run in order after writing the file. */
  install: string[][];
  /** Run in order before removing the file. */
  uninstall: string[][];
  /** What shows the service manager's view, and the logs. */
  status: string[];
  logs: string;
}

/** Everything for one platform: `home` is the user's home, `uid` their id (launchd's domain). */
export function servicePlan(platform: ServicePlatform, spec: ServiceSpec, where: { home: string; uid: number; xdgConfigHome?: string | undefined }): ServicePlan {
  if (platform === 'linux') {
    const unit = `${SERVICE_NAME}.service`;
    return {
      platform,
      tool: 'systemctl',
      file: join(where.xdgConfigHome || join(where.home, '.config'), 'systemd', 'user', unit),
      content: renderSystemdUnit(spec),
      install: [
        ['systemctl', '--user', 'daemon-reload'],
        ['systemctl', '--user', 'enable', '--now', unit],
      ],
      uninstall: [['systemctl', '--user', 'disable', '--now', unit]],
      status: ['systemctl', '--user', 'status', unit],
      logs: `journalctl --user -u ${unit}`,
    };
  }
  const domain = `gui/${where.uid}`;
  const file = join(where.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const logFile = join(where.home, 'Library', 'Logs', `${SERVICE_NAME}.log`);
  return {
    platform,
    tool: 'launchctl',
    file,
    content: renderLaunchdPlist(spec, logFile),
    install: [['launchctl', 'bootstrap', domain, file]],
    uninstall: [['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]],
    status: ['launchctl', 'print', `${domain}/${LAUNCHD_LABEL}`],
    logs: `tail -f ${logFile}`,
  };
}

/** A command as a shell line, for printing. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
