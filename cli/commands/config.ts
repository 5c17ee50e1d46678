import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT, subjectFrom } from '../subject.js';
import type { Command } from './index.js';

const usage = 'brain config [--subject NAME] [--json]';

export const config: Command = {
  usage,
  summary: 'Print the effective configuration (never a password or the admin URL): where the brain is, the files read, the subjects and the subject commands act as.',
  async run(args) {
    const { values, positionals } = parse(args, { json: { type: 'boolean' }, subject: { type: 'string' } }, usage);
    if (positionals.length) throw new CliError(`config takes no arguments\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    const subjects = loadSubjects(rt.subjectsFile);
    const effective = {
      mode: rt.mode,
      home: rt.home,
      ...(rt.mode === 'embedded' ? { dataDir: rt.dataDir } : { databaseUrl: rt.databaseUrl, passwordFile: rt.dbPasswordFile ?? `${rt.secretsDir}/<role>.password` }),
      subject: subjectFrom(values),
      subjectsFile: rt.subjectsFile,
      kindsFile: rt.kindsFile,
      denyListFile: rt.denyListFile,
      secretsDir: rt.secretsDir,
      host: rt.host,
      allowedHosts: rt.allowedHosts,
      embedder: rt.embedder,
      ollamaUrl: rt.ollamaUrl,
      ollamaModel: rt.ollamaModel,
      // Remote access (docs/remote.md): which subjects take OAuth, and their public names.
      oauthSubjects: rt.oauthSubjects,
      publicUrls: Object.entries(rt.publicUrls).map(([subject, url]) => `${subject}=${url}`),
      oauthIssuer: rt.oauthIssuer ?? '(built-in)',
      rolePrefix: subjects.rolePrefix,
      subjects: subjects.subjects.map((s) => ({ name: s.name, role: s.role, port: s.port, shared: s.isPersonal })),
      adminUrl: process.env.BRAIN_ADMIN_URL || process.env.BRAIN_ADMIN_URL_FILE ? '(set; not shown)' : '(not set)',
    };
    if (values.json) printJson(effective);
    else {
      const rows = Object.entries(effective).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? (x as { name: string }).name : String(x))).join(', ') : String(v)]);
      process.stdout.write(`${table(rows)}\n`);
    }
    return EXIT.ok;
  },
};
