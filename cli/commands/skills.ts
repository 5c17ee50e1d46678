import { resolve } from 'node:path';
import { defaultSkillsTarget, installSkills, listSkills } from '../../services/deploy/skills.js';
import { CliError, parse, printJson, table } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain skills [list] [--json] | brain skills install [--dir DIR] [--json]';

export const skills: Command = {
  usage,
  summary:
    'The Claude Code skills that ship with the brain (session close, ingest, query, maintain, briefing). `skills install` copies them into ~/.claude/skills (every project), or --dir DIR (e.g. a project\'s .claude/skills).',
  async run(args) {
    const { values, positionals } = parse(args, { dir: { type: 'string' }, json: { type: 'boolean' } }, usage);
    const [action = 'list', ...extra] = positionals;
    if (extra.length) throw new CliError(`unexpected "${extra.join(' ')}"\nusage: ${usage}`);
    if (action === 'list') {
      if (values.dir !== undefined) throw new CliError(`--dir goes with install\nusage: ${usage}`);
      const list = listSkills().map(({ name, description }) => ({ name, description }));
      if (values.json) printJson(list);
      else process.stdout.write(`${table([['SKILL', 'WHAT IT DOES'], ...list.map((s) => [s.name, s.description])])}\n`);
      return 0;
    }
    if (action !== 'install') throw new CliError(`unknown action "${action}"\nusage: ${usage}`);
    const target = values.dir !== undefined ? resolve(values.dir) : defaultSkillsTarget();
    const report = installSkills(target);
    if (values.json) printJson({ target, skills: report });
    else {
      process.stdout.write(
        `${table(report.map((s) => [s.action, s.name, s.path]))}\n\n` +
          'Claude Code picks them up in its next session; in a session, ask "what skills are available?" to check.\n',
      );
    }
    return 0;
  },
};
