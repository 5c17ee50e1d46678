import { parse, printJson } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE } from '../subject-options.js';
import { withToolCalls } from '../tool-calls.js';
import { CliError } from '../output.js';
import type { Command } from './index.js';

const usage = `brain call TOOL '{"json": "arguments"}' ${SUBJECT_USAGE}`;

export const call: Command = {
  usage,
  summary: 'Call one MCP tool directly, as the MCP server would (GBrain\'s `call`); prints its text result. Exit 1 when the tool reports an error.',
  async run(args) {
    const { values, positionals } = parse(args, SUBJECT_OPTIONS, usage);
    const [name, json] = positionals;
    if (!name) throw new CliError(`a tool name is needed\nusage: ${usage}`);
    let input: unknown = {};
    if (json) {
      try {
        input = JSON.parse(json);
      } catch {
        throw new CliError(`the arguments are not valid JSON\nusage: ${usage}`);
      }
    }
    return withToolCalls(values, async (tools) => {
      const r = await tools.call(name, input);
      if (values.json) printJson(r);
      else process.stdout.write(`${r.text}\n`);
      return r.ok ? 0 : 1;
    });
  },
};

export const tools: Command = {
  usage: `brain tools ${SUBJECT_USAGE} (also: brain --tools-json)`,
  summary: 'Print the tool definitions as JSON (name, description, input_schema), for tool discovery.',
  async run(args) {
    const { values } = parse(args, SUBJECT_OPTIONS, usage);
    // The definitions as this version's tool files give them (a running brain may be older).
    const { toolsJson, withToolRunner } = await import('../tool-runner.js');
    return withToolRunner(values, async (runner) => {
      printJson(toolsJson(runner.deps));
      return 0;
    });
  },
};
