// The deny-list corpus on every route and both databases: prints, per route, how many
// must-refuse cases were refused and how many must-pass cases were written (issue 15's
// acceptance: at least 99% and 95%), the errors, and with --verbose every miss, false
// positive and error. Exits 1 when a route falls under either threshold.
//
//   npm run build && node dist/bench/deny-list/corpus.js [--server postgres://ADMIN@HOST:PORT/DB] [--server-only]
//                                                        [--routes sql,upcast,...] [--verbose]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { embeddedCorpusBrain, serverCorpusBrain, type ClosableCorpusBrain } from './brain.js';
import { loadCorpus, pct, ratesLine, ROUTES, runRoute, type Route, type RouteRates } from './routes.js';

export const REFUSE_THRESHOLD = 99;
export const PASS_THRESHOLD = 95;

export async function runCorpusBench(opts: { server?: string; serverOnly?: boolean; routes?: readonly Route[]; verbose?: boolean; log?: (line: string) => void }) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const corpus = loadCorpus();
  const refuse = corpus.filter((c) => c.expect === 'refuse').length;
  log(`deny-list corpus: ${corpus.length} cases, ${refuse} must-refuse, ${corpus.length - refuse} must-pass`);
  const targets: (() => Promise<ClosableCorpusBrain>)[] = [];
  if (!opts.serverOnly) targets.push(embeddedCorpusBrain);
  if (opts.server) targets.push(() => serverCorpusBrain(opts.server!));
  const all: { database: string; rates: RouteRates }[] = [];
  for (const open of targets) {
    const brain = await open();
    try {
      log(`\n${brain.label}`);
      for (const route of opts.routes ?? ROUTES) {
        const rates = await runRoute(brain, route, corpus);
        all.push({ database: brain.label, rates });
        log(`  ${ratesLine(rates)}`);
        if (opts.verbose) {
          for (const c of rates.misses) log(`      miss #${c.n} (${c.class}): ${JSON.stringify(c.text)}`);
          for (const c of rates.falsePositives) log(`      false positive #${c.n} (${c.class}): ${JSON.stringify(c.text)}`);
          for (const e of rates.errors) log(`      error #${e.n}: ${e.message}`);
          for (const w of rates.wrongClass) log(`      wrong class #${w.case.n}: wanted "${w.case.label}", got ${JSON.stringify(w.message)}`);
        }
      }
    } finally {
      await brain.close();
    }
  }
  const failing = all.filter((a) => pct(a.rates.refused, a.rates.mustRefuse) < REFUSE_THRESHOLD || pct(a.rates.written, a.rates.mustPass) < PASS_THRESHOLD);
  log(failing.length ? `\n${failing.length} route(s) under ${REFUSE_THRESHOLD}% refused / ${PASS_THRESHOLD}% written` : `\nevery route at or above ${REFUSE_THRESHOLD}% refused and ${PASS_THRESHOLD}% written`);
  return { all, failing };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { server: { type: 'string' }, 'server-only': { type: 'boolean' }, routes: { type: 'string' }, verbose: { type: 'boolean' } },
  });
  const routes = values.routes?.split(',').map((r) => r.trim()) as Route[] | undefined;
  for (const r of routes ?? []) if (!ROUTES.includes(r)) throw new Error(`unknown route "${r}" (${ROUTES.join(', ')})`);
  const { failing } = await runCorpusBench({ server: values.server, serverOnly: values['server-only'], routes, verbose: values.verbose });
  process.exit(failing.length ? 1 : 0);
}
