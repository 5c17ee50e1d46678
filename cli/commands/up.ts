import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { parse, table } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain up';

export const up: Command = {
  usage,
  summary: 'Start the embedded brain (PGlite): bootstrap it, then serve every subject on its port.',
  async run(args) {
    parse(args, {}, usage);
    const rt = loadRuntimeConfig();
    const cfg = loadSubjects(rt.subjectsFile);
    const admin = await openAdmin(rt);
    try {
      const report = await runBootstrap(rt, admin, cfg);
      process.stdout.write(
        `Embedded brain ready in ${rt.dataDir} (${report.features.includes('vector') ? 'pgvector on' : 'keyword search only'}).\n` +
          `${table([['SUBJECT', 'ROLE', 'PORT'], ...cfg.subjects.map((s) => [s.name, s.role, String(s.port)])])}\n`,
      );
    } finally {
      await admin.close();
    }
    return 0;
  },
};
