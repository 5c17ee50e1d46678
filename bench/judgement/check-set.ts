// Validates the search-before-add labelled set (pairs-set.ts) and prints its counts.
// Run after the build: node dist/bench/judgement/check-set.js
// Exits 1 with one line per violation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../../config/package.js';
import { EXISTING, INCOMING, PAIRS, type ExistingCard, type PairLabel, type Subject } from './pairs-set.js';

const SUBJECTS: Subject[] = ['homelab', 'novel', 'personal'];
const MIN = { incoming: 350, pairs: 300, same: 120, related: 100, unrelated: 100, islands: 40 };
const EXISTING_PER_SUBJECT = { min: 90, max: 130 };
const REQUIRED: { id: string; title: string; same: string }[] = [
  { id: 'hl-same-restic', title: 'Restic backup program', same: 'tool/restic' },
  { id: 'hl-same-nas', title: 'Storage server (Synology DS920+)', same: 'environment/nas' },
  { id: 'hl-same-segmentation', title: 'Network segmentation', same: 'decision/vlan-plan' },
  { id: 'hl-same-sam', title: 'Sam', same: 'person/sam-neighbour' },
];

const problems: string[] = [];
const fail = (msg: string): void => void problems.push(msg);

// Topic kinds from kinds.yaml.
const kindsDoc = parse(readFileSync(join(PACKAGE_ROOT, 'kinds.yaml'), 'utf8')) as { topic?: Record<string, string> };
const topicKinds = new Set(Object.keys(kindsDoc.topic ?? {}));
if (topicKinds.size === 0) fail('kinds.yaml has no topic kinds');

// The other subjects' deny-list tokens: a card naming one leaks another subject's specifics.
const denyDoc = parse(readFileSync(join(PACKAGE_ROOT, 'deny-list.yaml'), 'utf8')) as { subjects?: Record<string, string[] | null> };
const denyTokens = Object.entries(denyDoc.subjects ?? {}).flatMap(([s, tokens]) => (tokens ?? []).map((t) => ({ subject: s, token: t.replace(/^the\s+/i, '').toLowerCase() })));

const SLUG = /^[a-z][a-z-]*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ID = /^[a-z]{2}-[a-z0-9]+(?:-[a-z0-9]+)*$/;
// What the personal deny-list would refuse, roughly: no IPs, e-mail, hostnames, phone-like numbers.
const PERSONAL_FORBIDDEN: [string, RegExp][] = [
  ['an IP address', /(?<![0-9.])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![0-9])/],
  ['an e-mail address', /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/i],
  ['a hostname', /\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:lan|local|arpa|home|internal|com|org|net|io|dev)\b/i],
  ['a phone-like number', /\b0[0-9]{2,4}[ .-]?[0-9]{3,4}[ .-]?[0-9]{3,4}\b|\+[1-9][0-9]{0,2}[ .-]?[0-9]/],
  ['a long digit run', /[0-9](?:[ -]?[0-9]){12,}/],
];

const textOf = (c: { title: string; summary?: string; body: string }): string => [c.title, c.summary ?? '', c.body].join('\n');

function checkText(where: string, subject: Subject, text: string): void {
  const lower = text.toLowerCase();
  for (const { subject: s, token } of denyTokens) {
    if (s !== subject && lower.includes(token)) fail(`${where}: names "${token}", a ${s} specific, in ${subject}`);
  }
  if (subject === 'personal') {
    for (const [label, re] of PERSONAL_FORBIDDEN) {
      const m = re.exec(text);
      if (m) fail(`${where}: personal text contains ${label} ("${m[0]}")`);
    }
  }
}

// Existing cards.
const bySubject = new Map<Subject, Map<string, ExistingCard>>(SUBJECTS.map((s) => [s, new Map()]));
for (const c of EXISTING) {
  const where = `existing ${c.subject}:${c.slug}`;
  const slugs = bySubject.get(c.subject);
  if (!slugs) { fail(`${where}: unknown subject`); continue; }
  if (slugs.has(c.slug)) fail(`${where}: duplicate slug in ${c.subject}`);
  slugs.set(c.slug, c);
  if (!SLUG.test(c.slug)) fail(`${where}: slug is not kind/words-with-dashes`);
  if (c.slug.split('/')[0] !== c.kind) fail(`${where}: slug prefix does not match kind "${c.kind}"`);
  if (!topicKinds.has(c.kind)) fail(`${where}: "${c.kind}" is not a topic kind in kinds.yaml`);
  if (!c.title.trim() || !c.body.trim()) fail(`${where}: empty title or body`);
  checkText(where, c.subject, textOf(c));
}
for (const s of SUBJECTS) {
  const n = bySubject.get(s)?.size ?? 0;
  if (n < EXISTING_PER_SUBJECT.min || n > EXISTING_PER_SUBJECT.max) fail(`existing ${s}: ${n} cards, want ${EXISTING_PER_SUBJECT.min}-${EXISTING_PER_SUBJECT.max}`);
}

// Incoming cards.
const ids = new Set<string>();
for (const c of INCOMING) {
  const where = `incoming ${c.id}`;
  if (ids.has(c.id)) fail(`${where}: duplicate id`);
  ids.add(c.id);
  if (!ID.test(c.id)) fail(`${where}: id is not lowercase words-with-dashes with a subject prefix`);
  if (!SUBJECTS.includes(c.subject)) fail(`${where}: unknown subject "${c.subject}"`);
  if (!topicKinds.has(c.kind)) fail(`${where}: "${c.kind}" is not a topic kind in kinds.yaml`);
  if (!c.title.trim() || !c.body.trim()) fail(`${where}: empty title or body`);
  if (!c.style.trim()) fail(`${where}: no style`);
  checkText(where, c.subject, textOf(c));
  const slugs = bySubject.get(c.subject) ?? new Map<string, ExistingCard>();
  const refs: [string, string][] = [
    ...(c.same !== undefined ? [['same', c.same] as [string, string]] : []),
    ...c.related.map((s): [string, string] => ['related', s]),
    ...c.unrelated.map((s): [string, string] => ['unrelated', s]),
  ];
  const seen = new Map<string, string>();
  for (const [label, slug] of refs) {
    if (!slugs.has(slug)) {
      const elsewhere = SUBJECTS.filter((s) => s !== c.subject && bySubject.get(s)?.has(slug));
      fail(`${where}: ${label} slug "${slug}" is not an existing ${c.subject} card${elsewhere.length ? ` (it is in ${elsewhere.join(', ')})` : ''}`);
    }
    const before = seen.get(slug);
    if (before !== undefined) fail(`${where}: "${slug}" is listed as both ${before} and ${label}`);
    seen.set(slug, label);
  }
}
for (const r of REQUIRED) {
  const c = INCOMING.find((i) => i.id === r.id);
  if (!c) fail(`required case ${r.id} ("${r.title}") is missing`);
  else if (c.title !== r.title || c.same !== r.same) fail(`required case ${r.id}: want "${r.title}" same as ${r.same}, got "${c.title}" same as ${c.same ?? 'nothing'}`);
}

// Counts.
const labels: PairLabel[] = ['same', 'related', 'unrelated'];
const count = (label: PairLabel, subject?: Subject): number => PAIRS.filter((p) => p.label === label && (subject === undefined || p.subject === subject)).length;
const islands = INCOMING.filter((c) => c.same === undefined && c.related.length === 0);
const kindOf = (subject: Subject, slug: string): string | undefined => bySubject.get(subject)?.get(slug)?.kind;
const unrelatedPairs = PAIRS.filter((p) => p.label === 'unrelated');
const crossKind = unrelatedPairs.filter((p) => {
  const inc = INCOMING.find((c) => c.id === p.incoming);
  return inc !== undefined && kindOf(p.subject, p.existing) !== inc.kind;
}).length;

const pad = (s: string | number, n: number): string => String(s).padEnd(n);
console.log(`existing cards: ${EXISTING.length} (${SUBJECTS.map((s) => `${s} ${bySubject.get(s)?.size ?? 0}`).join(', ')})`);
console.log(`incoming cards: ${INCOMING.length} (${SUBJECTS.map((s) => `${s} ${INCOMING.filter((c) => c.subject === s).length}`).join(', ')})`);
console.log(`islands (no same, no related): ${islands.length} (${SUBJECTS.map((s) => `${s} ${islands.filter((c) => c.subject === s).length}`).join(', ')})`);
console.log(`labelled pairs: ${PAIRS.length}`);
console.log(`  ${pad('label', 10)} ${SUBJECTS.map((s) => pad(s, 9)).join(' ')} total`);
for (const l of labels) console.log(`  ${pad(l, 10)} ${SUBJECTS.map((s) => pad(count(l, s), 9)).join(' ')} ${count(l)}`);
console.log(`unrelated pairs whose kinds differ: ${crossKind} of ${unrelatedPairs.length} (${Math.round((100 * crossKind) / Math.max(1, unrelatedPairs.length))}%)`);
const styles = new Map<string, { cards: number; same: number; related: number; unrelated: number }>();
for (const c of INCOMING) {
  const s = styles.get(c.style) ?? { cards: 0, same: 0, related: 0, unrelated: 0 };
  s.cards += 1;
  if (c.same !== undefined) s.same += 1;
  s.related += c.related.length;
  s.unrelated += c.unrelated.length;
  styles.set(c.style, s);
}
console.log('by style (cards: same/related/unrelated pairs):');
for (const [style, s] of [...styles].sort((a, b) => b[1].cards - a[1].cards || a[0].localeCompare(b[0]))) {
  console.log(`  ${pad(style, 24)} ${pad(s.cards, 4)} ${s.same}/${s.related}/${s.unrelated}`);
}
const referenced = new Set(PAIRS.map((p) => `${p.subject}:${p.existing}`));
console.log(`existing cards referenced by some pair: ${referenced.size} of ${EXISTING.length}`);

if (INCOMING.length < MIN.incoming) fail(`${INCOMING.length} incoming cards, want at least ${MIN.incoming}`);
if (PAIRS.length < MIN.pairs) fail(`${PAIRS.length} labelled pairs, want at least ${MIN.pairs}`);
for (const l of labels) if (count(l) < MIN[l]) fail(`${count(l)} ${l} pairs, want at least ${MIN[l]}`);
if (islands.length < MIN.islands) fail(`${islands.length} island cards, want at least ${MIN.islands}`);

if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s) in the judgement set:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log('\njudgement set OK');
