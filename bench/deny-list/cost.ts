// What the deny-list costs a write: a 2,000-character text (plain prose; prose with accents
// and typographic quotes; prose with Cyrillic look-alike letters, as an evasion would have;
// prose full of numbers, versions and paths, every one of which the IP check looks at), on
// PGlite and on a server.
//   matcher   brain_private.deny_check() on one topic row (slug, title, summary, the text as
//             body, timeline, frontmatter), timed inside the database (no round trips)
//   write     an INSERT of that topic as a project role: into personal (scanned) minus the
//             same INSERT into the project's own schema (not scanned); median of the runs
// Numbers only, no assertions: speeds depend on the machine (note its load average).
//
//   npm run build && node dist/bench/deny-list/cost.js [--server postgres://ADMIN@HOST:PORT/DB] [--server-only] [--runs 200]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { embeddedCorpusBrain, serverCorpusBrain, type ClosableCorpusBrain } from './brain.js';

const WORDS =
  'the quick brown fox jumps over a lazy dog while the cache warms and the queue drains before the nightly backup runs on the spare disks of the cluster'.split(' ');

/** About `length` characters of prose, sentence by sentence. */
export function prose(length: number, word: (i: number) => string = (i) => WORDS[(i * 7) % WORDS.length]!): string {
  let text = '';
  for (let i = 0; text.length < length; i++) text += word(i) + ((i + 1) % 14 === 0 ? '. ' : ' ');
  return text.slice(0, length);
}

export const TEXTS: Record<string, string> = {
  plain: prose(2000),
  'accents, typographic quotes': prose(2000, (i) => (i % 9 === 0 ? 'café' : i % 11 === 0 ? '“naïve”' : i % 13 === 0 ? 'it’s' : i % 17 === 0 ? '–' : WORDS[(i * 7) % WORDS.length]!)),
  'Cyrillic look-alikes': prose(2000, (i) => (i % 5 === 0 ? 'cаche' : WORDS[(i * 7) % WORDS.length]!)),
  'numbers, versions, paths': prose(2000, (i) =>
    [WORDS[(i * 7) % WORDS.length]!, `v${i % 7}.${i % 13}.${i % 5}.${i % 3}`, `/var/lib/app${i}/data`, `${1000 + i}`, 'Python 3.11.7.1'][i % 5]!,
  ),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(brain: ClosableCorpusBrain, runs: number, log: (line: string) => void): Promise<void> {
  await brain.admin.exec(`CREATE OR REPLACE FUNCTION pg_temp.deny_bench(body text, n int) RETURNS float LANGUAGE plpgsql AS $$
    DECLARE started timestamptz;
    BEGIN
      PERFORM brain_private.deny_check('topic', ARRAY['slug', 'title', 'summary', 'body', 'timeline', 'frontmatter'], ARRAY['notes/bench', 'Bench notes', 'A summary.', body, '', '{}']);
      started := clock_timestamp();
      FOR i IN 1 .. n LOOP
        PERFORM brain_private.deny_check('topic', ARRAY['slug', 'title', 'summary', 'body', 'timeline', 'frontmatter'], ARRAY['notes/bench', 'Bench notes', 'A summary.', body, '', '{}']);
      END LOOP;
      RETURN extract(epoch FROM clock_timestamp() - started) * 1000 / n;
    END $$`);
  const role = brain.config.subjects.find((s) => s.name === 'homelab')!.role;
  log(`\n${brain.label} (load average ${loadavg()[0]!.toFixed(1)})`);
  log(`  ${'text (2,000 characters)'.padEnd(28)} ${'matcher'.padStart(10)} ${'write, scanned'.padStart(15)} ${'write, not'.padStart(11)} ${'difference'.padStart(11)}`);
  for (const [name, text] of Object.entries(TEXTS)) {
    const [{ ms }] = (await brain.admin.query<{ ms: number }>('SELECT pg_temp.deny_bench($1, $2) AS ms', [text, runs])) as [{ ms: number }];
    const time = async (schema: string) => {
      const samples: number[] = [];
      for (let i = 0; i < Math.max(20, Math.floor(runs / 4)); i++) {
        const started = performance.now();
        await brain.asRole(role, (s) => s.query(`INSERT INTO ${schema}.topics (slug, kind, title, summary, body) VALUES ($1, 'concept', 'Bench notes', 'A summary.', $2)`, [`notes/bench-${i}`, text]));
        samples.push(performance.now() - started);
      }
      return median(samples);
    };
    const scanned = await time('personal');
    const not = await time('homelab');
    log(`  ${name.padEnd(28)} ${`${ms.toFixed(2)} ms`.padStart(10)} ${`${scanned.toFixed(2)} ms`.padStart(15)} ${`${not.toFixed(2)} ms`.padStart(11)} ${`${(scanned - not).toFixed(2)} ms`.padStart(11)}`);
  }
}

export async function runCostBench(opts: { server?: string; serverOnly?: boolean; runs?: number; log?: (line: string) => void }): Promise<void> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const runs = opts.runs ?? 200;
  log('deny-list cost per write of a 2,000-character text');
  const targets: (() => Promise<ClosableCorpusBrain>)[] = [];
  if (!opts.serverOnly) targets.push(embeddedCorpusBrain);
  if (opts.server) targets.push(() => serverCorpusBrain(opts.server!));
  for (const open of targets) {
    const brain = await open();
    try {
      await measure(brain, runs, log);
    } finally {
      await brain.close();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { server: { type: 'string' }, 'server-only': { type: 'boolean' }, runs: { type: 'string' } } });
  await runCostBench({ server: values.server, serverOnly: values['server-only'], runs: values.runs ? Number(values.runs) : undefined });
}
