import { loadKinds } from '../../config/kinds.js';
import { loadRuntimeConfig, type RuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { syncKindsNow, type KindsSyncReport } from '../../db/bootstrap.js';
import { planDataDir } from '../../db/data-dir.js';
import { openAdmin } from '../../db/open.js';
import { DEFAULT_KIND_MAP } from '../../services/gbrain/kinds.js';
import { CliError, parse, printJson, table } from '../output.js';
import { EXIT } from '../subject.js';
import type { Command } from './index.js';

const usage = 'brain kinds [sync] [--json]';

export const kinds: Command = {
  usage,
  summary:
    'The kind vocabulary (kinds.yaml): topic kinds (what something is) and episode kinds (what happened), with the GBrain directories that import into each. ' +
    '`kinds sync` writes kinds.yaml into the database now (removing a kind still in use is refused with the count).',
  async run(args) {
    const { values, positionals } = parse(args, { json: { type: 'boolean' } }, usage);
    if (positionals.length === 1 && positionals[0] === 'sync') return sync(values.json === true);
    if (positionals.length) throw new CliError(`kinds takes no arguments but "sync"\nusage: ${usage}`);
    const rt = loadRuntimeConfig();
    const list = loadKinds(rt.kindsFile).map((k) => ({ ...k, gbrainDirectories: Object.entries(DEFAULT_KIND_MAP).filter(([, kind]) => kind === k.name).map(([d]) => d) }));
    if (values.json) printJson(list);
    else {
      for (const cls of ['topic', 'episode'] as const) {
        process.stdout.write(`${cls === 'topic' ? 'Topic kinds' : 'Episode kinds'}:\n`);
        const rows = list.filter((k) => k.class === cls).map((k) => [`  ${k.name}`, k.description, k.gbrainDirectories.map((d) => `${d}/`).join(' ')]);
        process.stdout.write(`${table(rows)}\n`);
      }
    }
    return EXIT.ok;
  },
};

/**
 * Every start of the embedded brain syncs kinds.yaml already (the bootstrap does); this does
 * only that step, now, for a brain that exists: on a server (with the admin URL) without the
 * rest of `brain init`, and anywhere to learn before a restart whether the file is accepted.
 * It never creates a brain. Running servers read the kinds when they start: restart them.
 */
async function sync(json: boolean): Promise<number> {
  const rt = loadRuntimeConfig();
  // Read both files first: a mistake in either is named before the database is opened.
  const kindList = loadKinds(rt.kindsFile);
  const subjects = loadSubjects(rt.subjectsFile);
  if (rt.mode === 'embedded' && planDataDir(rt.dataDir, rt.secretsDir, false).action !== 'open') {
    throw new CliError(`there is no embedded brain in ${rt.dataDir} yet; \`brain init\` (or \`npm start\`) creates one with the kinds in ${rt.kindsFile}`);
  }
  const admin = await openAdmin(rt);
  let report: KindsSyncReport;
  try {
    const [exists] = await admin.session.query<{ ok: boolean }>("SELECT to_regclass('brain.kinds') IS NOT NULL AS ok");
    if (!exists?.ok) throw new CliError(`${where(rt)} has no brain yet; run \`brain init\` first (it reads ${rt.kindsFile} too)`);
    report = await syncKindsNow(admin.session, subjects, kindList);
  } finally {
    await admin.close();
  }
  if (json) printJson({ file: rt.kindsFile, ...report });
  else {
    const n = report.added.length + report.changed.length + report.removed.length;
    const lines = [
      n === 0 ? `The database already has the kinds of ${rt.kindsFile}.` : `Synced ${rt.kindsFile} into ${where(rt)}:`,
      ...(report.added.length ? [`  added:   ${report.added.join(', ')}`] : []),
      ...(report.changed.length ? [`  described anew: ${report.changed.join(', ')}`] : []),
      ...(report.removed.length ? [`  removed: ${report.removed.join(', ')}`] : []),
      ...(n ? ['Running servers read the kinds when they start: restart them (brain down, then npm start; or restart the stack).'] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return EXIT.ok;
}

function where(rt: RuntimeConfig): string {
  return rt.mode === 'embedded' ? `the embedded brain in ${rt.dataDir}` : 'the database server';
}
