import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { addSubjectToFile, loadSubjects, removeSubjectFromFile, subjectName } from '../../config/subjects.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { archiveSubject, removableSubject } from '../../db/subjects.js';
import { refreshComposeFile } from '../../services/deploy/compose-file.js';
import { CliError, parse, printJson, table } from '../output.js';
import type { Command } from './index.js';

/** A checkout that runs only the compose stack, or a brain not started yet, has no embedded data. */
const noEmbeddedBrain = (dataDir: string) => !existsSync(join(dataDir, 'PG_VERSION'));

const usage = 'brain subjects [list] [--json] | brain subjects add NAME [--port N] | brain subjects remove NAME --archive';

export const subjects: Command = {
  usage,
  summary: 'List, add or remove subjects. Adding provisions schema, role and grants; removing archives the schema, never drops it.',
  async run(args) {
    const { values, positionals } = parse(args, { json: { type: 'boolean' }, port: { type: 'string' }, archive: { type: 'boolean' } }, usage);
    const [action = 'list', name] = positionals;
    const rt = loadRuntimeConfig();
    if (action === 'list') {
      const cfg = loadSubjects(rt.subjectsFile);
      if (values.json) printJson(cfg.subjects);
      else process.stdout.write(`${table([['SUBJECT', 'PORT', 'ROLE', 'SHARED'], ...cfg.subjects.map((s) => [s.name, String(s.port), s.role, s.isPersonal ? 'yes' : ''])])}\n`);
      return 0;
    }
    if (!name) throw new CliError(`a subject name is needed\nusage: ${usage}`);
    const valid = subjectName.safeParse(name);
    if (!valid.success) throw new CliError(`"${name}": ${valid.error.issues[0]!.message}`);
    if (action === 'add') {
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && !Number.isInteger(port)) throw new CliError('--port must be a whole number');
      const cfg = addSubjectToFile(rt.subjectsFile, name, port);
      // The compose stack follows subjects.yaml at once, even if the bootstrap below fails.
      refreshComposeFile(rt.subjectsFile);
      const added = cfg.subjects.find((s) => s.name === name)!;
      // No embedded brain here (a compose-stack checkout, or nothing started yet): nothing to provision
      // now. Creating one would make an empty brain beside the stack's secrets; whichever brain starts
      // next provisions every subject in subjects.yaml (the stack's migrate, or `npm start`).
      if (rt.mode === 'embedded' && noEmbeddedBrain(rt.dataDir)) {
        process.stdout.write(
          `Subject "${name}" added to subjects.yaml (role ${added.role}, port ${added.port}). There is no embedded brain in ${rt.dataDir} to provision: ` +
            `./brain-up.sh (the compose stack) or \`npm start\` (the embedded brain) creates its schema, role and grants when it next starts.\n`,
        );
        return 0;
      }
      const admin = await openAdmin(rt);
      try {
        await runBootstrap(rt, admin, cfg);
      } finally {
        await admin.close();
      }
      process.stdout.write(`Subject "${name}" is ready: schema ${name}, role ${added.role}, port ${added.port}. Start its server with brain-up.sh or \`npm start\`.\n`);
      return 0;
    }
    if (action === 'remove') {
      if (!values.archive) {
        throw new CliError(`removing "${name}" takes its data out of service; pass --archive to confirm (the schema is renamed, never dropped, and stays in backups)`);
      }
      const cfg = loadSubjects(rt.subjectsFile);
      removableSubject(cfg, name);
      // As with add: no embedded brain here to archive in. The files follow; a server's database (the
      // stack's) keeps the schema and its data, since nothing here ever drops one.
      if (rt.mode === 'embedded' && noEmbeddedBrain(rt.dataDir)) {
        removeSubjectFromFile(rt.subjectsFile, name);
        refreshComposeFile(rt.subjectsFile);
        process.stdout.write(
          `Subject "${name}" removed from subjects.yaml. There is no embedded brain in ${rt.dataDir} to archive it in; ` +
            'a database that holds it (the compose stack\'s) keeps its schema and data, and ./brain-up.sh stops its server.\n',
        );
        return 0;
      }
      const admin = await openAdmin(rt);
      let archive: string;
      try {
        archive = await archiveSubject(admin.session, cfg, name);
      } finally {
        await admin.close();
      }
      removeSubjectFromFile(rt.subjectsFile, name);
      refreshComposeFile(rt.subjectsFile);
      const role = cfg.subjects.find((s) => s.name === name)!.role;
      if (admin.secrets) rmSync(admin.secrets.path(role), { force: true });
      process.stdout.write(`Subject "${name}" removed. Its data is kept in schema ${archive}, readable by the admin only.\n`);
      return 0;
    }
    throw new CliError(`unknown action "${action}"\nusage: ${usage}`);
  },
};
