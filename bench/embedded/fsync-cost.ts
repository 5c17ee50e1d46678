// What fsync costs the embedded brain: PGlite starts Postgres with fsync off (-F). With it
// off, a committed write survives the brain's process being killed (the OS holds the pages)
// but not the machine losing power before the OS writes them out. This prints commits per
// second and per-commit latency for card-sized write transactions with fsync off and on, in a
// scratch data directory on this disk, so the choice can be made on numbers.
//
//   npm run build && node dist/bench/embedded/fsync-cost.js [--commits 400] [--dir /path/on/the/disk/to/test]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

const { values } = parseArgs({ options: { commits: { type: 'string', default: '400' }, dir: { type: 'string' } } });
const commits = Number(values.commits);
const body = 'The NAS keeps nightly restic snapshots of every VM; retention is 7 daily, 4 weekly. '.repeat(24); // ~2 kB, a typical card

async function run(fsync: boolean): Promise<{ perSecond: number; p50: number; p95: number; checkpointMs: number }> {
  const dir = mkdtempSync(join(values.dir ?? tmpdir(), `fsync-${fsync ? 'on' : 'off'}-`));
  try {
    const params = PGlite.defaultStartParams.filter((p) => p !== '-F');
    const pg = await PGlite.create(join(dir, 'data'), { startParams: fsync ? params : [...params, '-F'] });
    const [setting] = (await pg.query<{ fsync: string }>('SHOW fsync')).rows;
    if (setting?.fsync !== (fsync ? 'on' : 'off')) throw new Error(`asked for fsync ${fsync ? 'on' : 'off'}, got ${setting?.fsync}`);
    await pg.exec(`CREATE TABLE cards (id bigserial PRIMARY KEY, slug text UNIQUE, body text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED);
                   CREATE INDEX ON cards USING gin (tsv);`);
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < commits; i++) {
      const t = performance.now();
      await pg.transaction(async (tx) => {
        await tx.query('INSERT INTO cards (slug, body) VALUES ($1, $2)', [`card-${i}`, `${i} ${body}`]);
      });
      times.push(performance.now() - t);
    }
    const total = performance.now() - started;
    const c = performance.now();
    await pg.exec('CHECKPOINT');
    const checkpointMs = performance.now() - c;
    await pg.close();
    times.sort((a, b) => a - b);
    return { perSecond: commits / (total / 1000), p50: times[Math.floor(times.length * 0.5)]!, p95: times[Math.floor(times.length * 0.95)]!, checkpointMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: string[] = [];
for (const fsync of [false, true, false, true]) {
  const r = await run(fsync);
  rows.push(`| ${fsync ? 'on ' : 'off'} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.checkpointMs.toFixed(0)} |`);
}
console.log(`${commits} write transactions of one ~2 kB card each (insert + full-text index), load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| fsync | commits/s | p50 ms | p95 ms | CHECKPOINT ms |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
