import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/package.js';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { serviceSpec, servicePlan, shellLine, type ServicePlan, type ServicePlatform } from '../../services/deploy/service-files.js';
import { CliError, parse, printJson } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain service install|uninstall [--print | --files-only] [--platform linux|darwin] | brain service status [--json]';

/** The service manager's command on PATH, or undefined: then the commands are printed, not run. */
function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, tool);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

function plan(platformOption: string | undefined): ServicePlan {
  const platform = (platformOption ?? process.platform) as ServicePlatform;
  if (platform !== 'linux' && platform !== 'darwin') {
    throw new CliError(
      platformOption
        ? `--platform must be linux or darwin, not "${platformOption}"`
        : `no service manager support on ${process.platform}: run \`brain up\` at logon with the system's own scheduler, or use the compose stack (docs/deploy.md)`,
    );
  }
  const rt = loadRuntimeConfig();
  const spec = serviceSpec({ node: process.execPath, brainJs: join(PACKAGE_ROOT, 'dist', 'cli', 'brain.js'), cwd: process.cwd(), home: rt.home, env: process.env });
  return servicePlan(platform, spec, { home: homedir(), uid: userInfo().uid, xdgConfigHome: process.env.XDG_CONFIG_HOME });
}

/** Runs each command in turn when the tool is here and this is the platform it manages; else prints them. */
function runOrPrint(p: ServicePlan, commands: string[][], run: boolean): number {
  const canRun = run && p.platform === process.platform && onPath(p.tool) !== undefined;
  if (!canRun) {
    process.stdout.write(`Run:\n${commands.map((c) => `  ${shellLine(c)}`).join('\n')}\n`);
    return 0;
  }
  for (const c of commands) {
    process.stdout.write(`$ ${shellLine(c)}\n`);
    const r = spawnSync(c[0]!, c.slice(1), { stdio: 'inherit' });
    if (r.status !== 0) {
      process.stderr.write(`brain: \`${shellLine(c)}\` failed (exit ${r.status ?? r.signal}); the file stays at ${p.file}\n`);
      return 1;
    }
  }
  return 0;
}

/** Whether a brain answers on each subject's port now (GET /healthz, one try). */
async function answering(): Promise<{ subject: string; url: string; up: boolean }[]> {
  const rt = loadRuntimeConfig();
  const host = rt.host === '0.0.0.0' ? '127.0.0.1' : rt.host;
  return Promise.all(
    loadSubjects(rt.subjectsFile).subjects.map(async (s) => {
      const url = `http://${host}:${s.port}/mcp`;
      const up = await fetch(`http://${host}:${s.port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.ok,
        () => false,
      );
      return { subject: s.name, url, up };
    }),
  );
}

export const service: Command = {
  usage,
  summary:
    'Keep `brain up` running as a user service: install writes a systemd user unit (Linux) or a launchd agent (macOS) for this install, folder and environment, restarted on failure, and starts it; --print only shows the file and the commands, --files-only writes or removes the file and prints the commands.',
  async run(args) {
    const { values, positionals } = parse(
      args,
      { print: { type: 'boolean' }, 'files-only': { type: 'boolean' }, platform: { type: 'string' }, json: { type: 'boolean' } },
      usage,
    );
    const [action, ...extra] = positionals;
    if (!action || extra.length) throw new CliError(`usage: ${usage}`);
    if (values.print && values['files-only']) throw new CliError(`--print writes nothing; --files-only writes the file: give one\nusage: ${usage}`);
    const p = plan(values.platform);
    // A file for another platform would only mislead this machine's service manager.
    if (!values.print && action !== 'status' && p.platform !== process.platform) {
      throw new CliError(`--platform ${p.platform} is for --print on this ${process.platform} machine`);
    }
    switch (action) {
      case 'install': {
        if (values.print) {
          process.stdout.write(`# ${p.file}\n${p.content}\n`);
          return runOrPrint(p, p.install, false);
        }
        mkdirSync(dirname(p.file), { recursive: true });
        writeFileSync(p.file, p.content, { mode: 0o644 });
        process.stdout.write(`Wrote ${p.file}\n`);
        const code = runOrPrint(p, p.install, !values['files-only']);
        process.stdout.write(
          `Status: \`brain service status\` or \`${shellLine(p.status)}\`; logs: \`${p.logs}\`.` +
            (p.platform === 'linux' ? ' To start it at boot without logging in: `loginctl enable-linger`.' : '') +
            '\n',
        );
        return code;
      }
      case 'uninstall': {
        if (values.print) return runOrPrint(p, p.uninstall, false);
        if (!existsSync(p.file)) {
          process.stdout.write(`No service installed (${p.file} does not exist).\n`);
          return 0;
        }
        const code = runOrPrint(p, p.uninstall, !values['files-only']);
        if (code !== 0) return code;
        rmSync(p.file);
        process.stdout.write(`Removed ${p.file}\n`);
        return p.platform === 'linux' ? runOrPrint(p, [['systemctl', '--user', 'daemon-reload']], !values['files-only']) : 0;
      }
      case 'status': {
        const installed = existsSync(p.file);
        const servers = await answering();
        if (values.json) printJson({ installed, file: p.file, servers });
        else {
          process.stdout.write(
            `${installed ? `Installed: ${p.file}` : `Not installed (${p.file} does not exist).`}\n` +
              servers.map((s) => `  ${s.subject.padEnd(12)} ${s.url}  ${s.up ? 'answering' : 'not answering'}`).join('\n') +
              `\nThe service manager's view: \`${shellLine(p.status)}\`; logs: \`${p.logs}\`.\n`,
          );
        }
        return 0;
      }
      default:
        throw new CliError(`unknown action "${action}"\nusage: ${usage}`);
    }
  },
};
