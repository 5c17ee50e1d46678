// Lint's near-duplicates on the labelled pair set (pairs-set.ts): every existing card and every
// incoming card is written into its subject (incoming ones under their own slugs, as if search
// before add had been skipped: an import, or cards written before it existed), then lint runs
// on each subject with the offline embedder, as the server runs it.
//
// A pair is labelled when the set says what it is:
//   - the same thing: an incoming card and its `same` card, and two incoming cards with one `same`;
//   - not the same: an incoming card and a `related` or `unrelated` card, and two existing cards
//     (the existing cards of a subject are distinct things by construction of the set).
// Prints, for lint as shipped (judged) and for the old definition (title trigram similarity >=
// 0.6, or first-chunk cosine >= 0.9): same-thing pairs reported, labelled not-same pairs
// reported, pairs reported between unlabelled cards, and lint's time per subject.
//
//   npm run build && node dist/bench/judgement/lint.js [--keyword-only]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createLintRun } from '../../services/curation/lint-batches.js';
import { embeddingLintHooks, similarEmbeddings } from '../../services/curation/lint-hooks.js';
import { lint } from '../../services/curation/lint.js';
import { similarTitles } from '../../services/curation/similar-titles.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import type { BrainContext } from '../../services/knowledge/context.js';
import { createTopic } from '../../services/knowledge/topics.js';
import { judgementModelFor } from '../../services/search/calibration.js';
import { embedStale } from '../../services/search/reembed.js';
import { embeddedBenchBrain } from '../search/brain.js';
import { EXISTING, INCOMING, type IncomingCard } from './pairs-set.js';

const SUBJECTS = ['personal', 'homelab', 'novel'] as const;
const NAMED = ['Restic backup program', 'Storage server (Synology DS920+)', 'Network segmentation', 'Sam'];
const SWEEP = Array.from({ length: 18 }, (_, i) => Number((0.1 + 0.05 * i).toFixed(2)));
const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
const key = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

export const incomingSlug = (c: IncomingCard) => `${c.kind}/in-${c.id}`;

interface Labels {
  same: Set<string>;
  notSame: Set<string>;
}

/** The labelled pairs of one subject, keyed by slug pair. */
export function labelsOf(subject: string): Labels {
  const same = new Set<string>();
  const notSame = new Set<string>();
  const incoming = INCOMING.filter((c) => c.subject === subject);
  for (const c of incoming) {
    if (c.same) same.add(key(incomingSlug(c), c.same));
    for (const s of [...c.related, ...c.unrelated]) notSame.add(key(incomingSlug(c), s));
  }
  for (const [i, x] of incoming.entries()) for (const y of incoming.slice(i + 1)) if (x.same && x.same === y.same) same.add(key(incomingSlug(x), incomingSlug(y)));
  const existing = EXISTING.filter((c) => c.subject === subject);
  for (const [i, x] of existing.entries()) for (const y of existing.slice(i + 1)) notSame.add(key(x.slug, y.slug));
  return { same, notSame };
}

interface Tally {
  sameTotal: number;
  sameReported: number;
  notSameTotal: number;
  notSameReported: number;
  unlabelledReported: number;
  reported: number;
}

function tally(tallies: Tally, labels: Labels, reported: readonly { a: string; b: string }[]): void {
  const seen = new Set(reported.map((p) => key(p.a, p.b)));
  tallies.sameTotal += labels.same.size;
  tallies.notSameTotal += labels.notSame.size;
  tallies.reported += seen.size;
  for (const k of seen) {
    if (labels.same.has(k)) tallies.sameReported++;
    else if (labels.notSame.has(k)) tallies.notSameReported++;
    else tallies.unlabelledReported++;
  }
}

const empty = (): Tally => ({ sameTotal: 0, sameReported: 0, notSameTotal: 0, notSameReported: 0, unlabelledReported: 0, reported: 0 });

function line(label: string, t: Tally): string {
  return `  ${label.padEnd(34)} same thing reported ${pct(t.sameReported, t.sameTotal).padStart(6)} (${t.sameReported}/${t.sameTotal})   not-same reported ${pct(t.notSameReported, t.notSameTotal).padStart(5)} (${t.notSameReported}/${t.notSameTotal})   unlabelled pairs reported ${t.unlabelledReported}   pairs reported ${t.reported}`;
}

export async function runLintBench(opts: { keywordOnly?: boolean; log?: (line: string) => void } = {}): Promise<{ judged: Tally; likely: Tally; old: Tally; lintAt: number }> {
  const log = opts.log ?? console.log;
  const embedder = new OfflineEmbedder();
  const hooks = opts.keywordOnly ? {} : embeddingLintHooks(embedder);
  const model = judgementModelFor(opts.keywordOnly ? undefined : embedder.model);
  const brain = await embeddedBenchBrain({ subjects: [...SUBJECTS] });
  try {
    const contexts = new Map<string, BrainContext>();
    const ctxOf = async (s: string) => contexts.get(s) ?? contexts.set(s, await brain.context(s)).get(s)!;
    for (const c of EXISTING) await createTopic(await ctxOf(c.subject), { slug: c.slug, kind: c.kind, title: c.title, summary: c.summary ?? '', body: c.body });
    for (const c of INCOMING) await createTopic(await ctxOf(c.subject), { slug: incomingSlug(c), kind: c.kind, title: c.title, summary: c.summary ?? '', body: c.body });
    if (!opts.keywordOnly) for (const s of SUBJECTS) await embedStale(await ctxOf(s), embedder);
    log(`lint near-duplicates on bench/judgement: ${EXISTING.length} existing + ${INCOMING.length} incoming cards in ${SUBJECTS.length} subjects, ${opts.keywordOnly ? 'no embedder (keyword-only judgement)' : `offline embedder (${embedder.model})`}; lintAt ${model.lintAt}`);

    const judged = empty();
    const likely = empty();
    const old = empty();
    const sweep = SWEEP.map(() => empty());
    const shipped = empty();
    const named: string[] = [];
    for (const s of SUBJECTS) {
      const ctx = await ctxOf(s);
      const labels = labelsOf(s);
      const started = performance.now();
      const report = await lint(ctx, { limit: 1000, duplicateScore: 0 }, hooks);
      const ms = performance.now() - started;
      tally(judged, labels, report.duplicateTopics);
      for (const c of INCOMING.filter((x) => x.subject === s && NAMED.includes(x.title))) {
        const d = report.duplicateTopics.find((p) => key(p.a, p.b) === key(incomingSlug(c), c.same!));
        named.push(`"${c.title}" ~ ${c.same}: ${d ? `P(same) ${d.score}${d.score >= model.lintAt ? ', reported' : ', NOT reported'}` : 'NOT weighed'}`);
      }
      tally(shipped, labels, report.duplicateTopics.filter((d) => d.score >= model.lintAt));
      tally(likely, labels, report.duplicateTopics.filter((d) => d.verdict === 'same'));
      SWEEP.forEach((t, i) => tally(sweep[i]!, labels, report.duplicateTopics.filter((d) => d.score >= t)));
      const run = createLintRun(ctx);
      const oldPairs = [...((await similarTitles(run, 0.6)) ?? []), ...(opts.keywordOnly ? [] : await similarEmbeddings(run, { model: embedder.model, dims: embedder.dimensions }, 0.9))];
      tally(old, labels, oldPairs);
      log(`  ${s}: lint ${(ms / 1000).toFixed(1)} s, ${report.duplicateTopics.length} pairs weighed as possible duplicates (${report.duplicateTopics.filter((d) => d.verdict === 'same').length} likely the same)`);
    }
    log(line(`judged, P(same) >= lintAt ${model.lintAt}`, shipped));
    log(line('judged: all weighed', judged));
    log(line('judged: "likely the same" only', likely));
    log(line('before: title >= 0.6 or cosine >= 0.9', old));
    log(`  issue 14's four cases: ${named.join('; ')}`);
    log('  by P(same) (precision: same / labelled reported; at worst: same / all reported):');
    SWEEP.forEach((t, i) => {
      const x = sweep[i]!;
      log(`${line(`    P(same) >= ${t}`, x)}   precision ${pct(x.sameReported, x.sameReported + x.notSameReported)} (at worst ${pct(x.sameReported, x.reported)})`);
    });
    // The rule calibration.ts's lintAt follows (as flagAt's does): the lowest P(same) at which at
    // least half of the pairs reported are labelled the same thing, unlabelled ones counted wrong.
    const chosen = SWEEP.find((_, i) => sweep[i]!.reported > 0 && sweep[i]!.sameReported / sweep[i]!.reported >= 0.5);
    log(`  lowest P(same) with at least half of the reported pairs the same thing: ${chosen ?? 'none'}`);
    return { judged, likely, old, lintAt: model.lintAt };
  } finally {
    await brain.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { 'keyword-only': { type: 'boolean', default: false } } });
  await runLintBench({ keywordOnly: values['keyword-only'] });
}
