import { loadRuntimeConfig } from '../../config/runtime.js';
import { openAdmin, runBootstrap } from '../../db/open.js';
import { parse, printJson } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain init [--json]';

export const init: Command = {
  usage,
  summary: 'Create or update the brain: roles, schemas, migrations, kinds and grants (idempotent; needs the admin URL on a server).',
  async run(args) {
    const { values } = parse(args, { json: { type: 'boolean' } }, usage);
    const rt = loadRuntimeConfig();
    // Asked for by name: an absent or empty data directory becomes a new brain even beside secrets.
    const admin = await openAdmin(rt, { init: true });
    try {
      const report = await runBootstrap(rt, admin);
      if (values.json) printJson({ mode: rt.mode, ...report });
      else {
        const where = rt.mode === 'embedded' ? `embedded brain in ${rt.dataDir}` : 'database server';
        process.stdout.write(
          `Brain is up to date (${where}).\n` +
            `  roles created:      ${report.rolesCreated.join(', ') || 'none'}\n` +
            `  migrations applied: ${report.migrationsApplied.length}\n` +
            (report.migrationsSkipped.length ? `  migrations skipped: ${report.migrationsSkipped.join('; ')}\n` : '') +
            `  features:           ${report.features.join(', ') || 'none'}${report.features.includes('vector') ? '' : ' (no pgvector: keyword search only)'}\n`,
        );
      }
      return 0;
    } finally {
      await admin.close();
    }
  },
};
