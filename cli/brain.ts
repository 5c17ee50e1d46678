#!/usr/bin/env node
// The `brain` command: a thin dispatcher over one file per command.
import { ConfigError } from '../config/subjects.js';
import { commands, type Command } from './commands/index.js';
import { CliError } from './output.js';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    printHelp();
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') return commands.version!.run([]);
  if (name === '--tools-json') return commands.tools!.run(rest);
  const command: Command | undefined = commands[name];
  if (!command) {
    process.stderr.write(`brain: unknown command "${name}"; run \`brain --help\` for the list\n`);
    return 2;
  }
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
