// GBrain import/export throughput: generates a synthetic brain (7,500 pages by default),
// imports it into a subject, exports it, checks every file comes back byte for byte and
// that a second import writes nothing; prints times and peak memory. On the embedded
// brain (PGlite, a data directory as `brain up` uses) and, with --url, on a real server
// (a throwaway database and roles are created there and dropped afterwards). No embeddings.
//
//   npm run -s build
//   node dist/bench/gbrain/import-export.js [--pages 7500] [--seed 1] [--url postgres://ADMIN:PW@HOST:PORT/postgres] [--keep]
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadDenyList } from '../../config/deny-list.js';
import { loadKinds } from '../../config/kinds.js';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { parseSubjects, type SubjectsConfig } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { SecretStore } from '../../db/secrets.js';
import { ident, pgliteSession, pgSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { openServerSubjectDb } from '../../db/server-subject-db.js';
import { exportBrain } from '../../services/gbrain/export.js';
import { importBrain } from '../../services/gbrain/import.js';
import { createContext } from '../../services/knowledge/context.js';
import { generateBrain } from './generate.js';
import { listFiles } from './list-files.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '7500' }, seed: { type: 'string', default: '1' }, url: { type: 'string' }, keep: { type: 'boolean' } } });
const pages = Number(values.pages);
const seed = Number(values.seed);
if (!Number.isInteger(pages) || pages < 1 || !Number.isInteger(seed)) {
  console.error('usage: node dist/bench/gbrain/import-export.js [--pages N] [--seed N] [--url ADMIN_URL] [--keep]');
  process.exit(2);
}

/** Peak resident memory: the kernel's high-water mark, and our own 50 ms samples per phase. */
class MemoryWatch {
  private peak = 0;
  private timer: NodeJS.Timeout | undefined;
  start(): void {
    this.peak = process.memoryUsage().rss;
    this.timer = setInterval(() => (this.peak = Math.max(this.peak, process.memoryUsage().rss)), 50);
  }
  stop(): number {
    clearInterval(this.timer);
    return Math.max(this.peak, process.memoryUsage().rss);
  }
}

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MB`;
const subjects = (prefix: string): SubjectsConfig => parseSubjects(`role_prefix: ${prefix}\nsubjects:\n  personal:\n    port: 17501\n  bench:\n    port: 17502\n`, 'bench subjects');
const kinds = loadKinds(join(PACKAGE_ROOT, 'kinds.yaml'));
const denyList = loadDenyList(join(PACKAGE_ROOT, 'deny-list.yaml'));

async function run(label: string, handle: SubjectDb, src: string, work: string): Promise<void> {
  const ctx = await createContext(handle.subject, handle.db);
  const watch = new MemoryWatch();
  let last = 0;
  watch.start();
  const first = await importBrain(ctx, src, {
    onProgress: ({ done, total }) => {
      if (done - last >= 1000 || done === total) {
        last = done;
        process.stderr.write(`  ${label} import: ${done}/${total}\n`);
      }
    },
  });
  const importPeak = watch.stop();
  watch.start();
  const out = join(work, `export-${label}`);
  const exported = await exportBrain(ctx, out);
  const exportPeak = watch.stop();
  let different = 0;
  const srcFiles = await listFiles(src);
  const outFiles = new Set(await listFiles(out));
  for (const f of srcFiles) if (!outFiles.has(f) || !(await readFile(join(src, f))).equals(await readFile(join(out, f)))) different++;
  watch.start();
  const second = await importBrain(ctx, src);
  const secondPeak = watch.stop();
  console.log(
    JSON.stringify(
      {
        database: label,
        pages,
        import: { seconds: +first.seconds.toFixed(1), timings: first.timings, pagesPerSecond: Math.round(first.pages.found / first.seconds), peakRss: mb(importPeak), ok: first.ok, failed: first.failed.length },
        export: { seconds: +exported.seconds.toFixed(1), peakRss: mb(exportPeak), files: outFiles.size, differentFromSource: different, extraFiles: outFiles.size - srcFiles.length },
        secondImport: { seconds: +second.seconds.toFixed(1), timings: second.timings, peakRss: mb(secondPeak), created: second.pages.created, updated: second.pages.updated, unchanged: second.pages.unchanged },
        links: first.links,
        timeline: first.timeline,
        sidecars: first.sidecars,
        maxRssKernel: mb(process.resourceUsage().maxRSS * 1024),
      },
      (k, v) => (k === 'missingTargets' ? (v as string[]).length : v),
      2,
    ),
  );
}

const work = await mkdtemp(join(tmpdir(), 'gbrain-bench-'));
try {
  const src = join(work, 'brain');
  const t0 = performance.now();
  const stats = await generateBrain(src, { pages, seed });
  console.error(`generated ${stats.pages} pages, ${stats.sidecars} sidecars, ${stats.links} links in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const embedded = await EmbeddedDatabase.open(join(work, 'pglite'));
  try {
    const cfg = subjects('bench_');
    await embedded.lock.run(() => bootstrap(pgliteSession(embedded.pg), { subjects: cfg, kinds, denyList, secrets: null }));
    const handle = openEmbeddedSubjectDb(embedded, cfg.subjects.find((s) => s.name === 'bench')!);
    await run('pglite', handle, src, work);
    await handle.close();
  } finally {
    await embedded.close();
  }

  if (values.url) {
    const database = `brain_bench_${randomBytes(4).toString('hex')}`;
    const prefix = `b${randomBytes(3).toString('hex')}_`;
    const root = new pg.Client({ connectionString: values.url });
    await root.connect();
    await root.query(`CREATE DATABASE ${ident(database)}`);
    const url = new URL(values.url);
    url.pathname = `/${database}`;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    const secrets = new SecretStore(join(work, 'secrets'));
    const cfg = subjects(prefix);
    try {
      await bootstrap(pgSession(admin), { subjects: cfg, kinds, denyList, secrets });
      const subject = cfg.subjects.find((s) => s.name === 'bench')!;
      const handle = openServerSubjectDb({ host: url.hostname, port: Number(url.port || 5432), database }, subject, secrets.read(subject.role)!);
      await run('postgres', handle, src, work);
      await handle.close();
    } finally {
      await admin.end();
      await root.query(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
      for (const s of [...cfg.subjects.map((x) => x.role), cfg.ownerRole, cfg.auditRole]) await root.query(`DROP ROLE IF EXISTS ${ident(s)}`);
      await root.end();
    }
  }
} finally {
  if (values.keep) console.error(`kept ${work}`);
  else await rm(work, { recursive: true, force: true });
}
