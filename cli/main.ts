// The `brain` command: a thin dispatcher over one file per command, each loaded only when
// it runs (commands/index.ts), so `--help` and `version` answer without the heavy modules.
// The entry that loads it (cli/brain.ts, or the bundle's, scripts/bundle.mjs) has already set
// the WebAssembly tiers, and the bundle's installed the code cache (cli/code-cache.ts).
import { ConfigError } from '../config/errors.js';
import { commands, loadCommand } from './commands/index.js';
import { compileEarlyFor } from './early-compile.js';
import { CliError } from './output.js';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    printHelp();
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') return (await loadCommand(commands.version!)).run([]);
  if (name === '--tools-json') return (await loadCommand(commands.tools!)).run(rest);
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    process.stderr.write(`brain: unknown command "${name}"; run \`brain --help\` for the list\n`);
    return 2;
  }
  if (!rest.includes('--help') && !rest.includes('-h')) compileEarlyFor(name);
  const command = await loadCommand(entry);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  return command.run(rest);
}

function printHelp(): void {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  process.stdout.write(
    'brain: long-term memory for Claude, one sealed subject at a time.\n\nCommands:\n' +
      Object.entries(commands)
        .map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`)
        .join('\n') +
      '\n\n`brain COMMAND --help` for its options. Exit codes: 0 ok, 1 failed, 2 usage or configuration error.\n',
  );
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof CliError || error instanceof ConfigError;
    process.stderr.write(`brain: ${(error as Error).message}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
