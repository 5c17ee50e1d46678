// Validates the labelled question set and prints its counts; exits 1 on any violation.
//
//   npm run build && node dist/bench/questions/check-set.js
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { questionSet, type QuestionStyle, type SetCard, type SetQuestion, type SetSubject } from './question-set.js';

const STOP = new Set(
  (
    'a an the and or but if of to in on at by for with from into onto over under about after before up down out off ' +
    'is are was were be been being am do does did doing done have has had having get got go goes going went ' +
    'i me my mine myself we our ours us you your yours he him his she her hers it its they them their theirs ' +
    'what which who whom whose when where why how this that these those there here then than so too very ' +
    'not no nor can could will would shall should may might must just also all any each every some such own same other ' +
    'only both few more most much many s t d ll m re ve don isn aren wasn didn doesn won can\'t ' +
    'again still ever never once now yet one as per via let lets said say says tell told like'
  ).split(/\s+/),
);
/** Words a 'recent' question uses to ask for the newest; not topic words. */
const RECENCY = new Set(['latest', 'recent', 'recently', 'most', 'last', 'newest', 'new', 'update', 'news', 'end', 'final', 'finally', 'current', 'currently']);

const stem = (w: string): string => {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
};
const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w && !STOP.has(w));
const stems = (text: string): Set<string> => new Set(words(text).map(stem));
const cardText = (c: SetCard): string => [c.title, c.summary ?? '', c.body, ...(c.tags ?? [])].join(' ');

const READABLE: Record<SetSubject, SetSubject[]> = { homelab: ['homelab', 'personal'], novel: ['novel', 'personal'], personal: ['personal'] };
const MINIMUM: Record<QuestionStyle, number> = { conversational: 40, entity: 30, question: 30, paraphrase: 25, keyword: 15, quoted: 16, kind: 15, recent: 10, nonsense: 40 };

function findUp(file: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, file))) return join(dir, file);
    const up = dirname(dir);
    if (up === dir) throw new Error(`${file} not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

export function checkSet(): { errors: string[]; report: string[] } {
  const errors: string[] = [];
  const err = (m: string) => errors.push(m);
  const kindsYaml = parse(readFileSync(findUp('kinds.yaml'), 'utf8')) as { topic: Record<string, string>; episode: Record<string, string> };
  const topicKinds = new Set(Object.keys(kindsYaml.topic));
  const episodeKinds = new Set(Object.keys(kindsYaml.episode));

  const { cards, questions } = questionSet();
  if (JSON.stringify(questionSet()) !== JSON.stringify({ cards, questions })) err('questionSet() is not deterministic');

  // Cards
  const byKey = new Map<string, SetCard>();
  for (const c of cards) {
    if (byKey.has(c.key)) err(`duplicate card key ${c.key}`);
    byKey.set(c.key, c);
    const kinds = c.entity === 'topic' ? topicKinds : episodeKinds;
    if (!kinds.has(c.kind)) err(`${c.key}: kind '${c.kind}' is not a ${c.entity} kind in kinds.yaml`);
    if (c.entity === 'episode') {
      if (!c.occurredAt || Number.isNaN(Date.parse(c.occurredAt))) err(`${c.key}: episode without a valid occurredAt`);
    } else if (c.occurredAt !== undefined) err(`${c.key}: topic with occurredAt`);
    if (!c.title.trim() || !c.body.trim()) err(`${c.key}: empty title or body`);
    for (const t of c.tags ?? []) if (!/^[a-z0-9-]+$/.test(t)) err(`${c.key}: bad tag '${t}'`);
  }
  const episodes = cards.filter((c) => c.entity === 'episode');
  for (let i = 1; i < episodes.length; i++) {
    const a = episodes[i - 1]!;
    const b = episodes[i]!;
    if (a.key >= b.key || a.occurredAt! > b.occurredAt!) err(`episodes out of order: ${a.key} ${a.occurredAt} / ${b.key} ${b.occurredAt}`);
  }
  // Personal cards: no IP addresses, e-mail addresses or host names.
  const hostNames = new Set(['home.arpa', ...cards.filter((c) => c.subject === 'homelab' && c.key.startsWith('host/')).map((c) => c.key.slice(5)).filter((h) => /[0-9-]/.test(h))]);
  for (const c of cards.filter((x) => x.subject === 'personal')) {
    const text = cardText(c);
    if (/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/.test(text)) err(`${c.key}: personal card holds an IP address`);
    if (/[\w.+-]+@[\w-]+\.[\w.]+/.test(text)) err(`${c.key}: personal card holds an e-mail address`);
    for (const h of hostNames) if (new RegExp(`(^|[^a-z0-9-])${h.replace('.', '\\.')}($|[^a-z0-9-])`, 'i').test(text)) err(`${c.key}: personal card names the host ${h}`);
  }

  // Questions
  const ids = new Set<string>();
  const speakers = new Set<string>();
  for (const c of episodes) for (const m of c.body.matchAll(/^([A-Z][a-z]+): /gm)) if (m[1] !== 'Me') speakers.add(m[1]!.toLowerCase());
  let quotedWordsOnly = 0;
  for (const q of questions) {
    if (ids.has(q.id)) err(`duplicate question id ${q.id}`);
    ids.add(q.id);
    const rel = q.relevant.map((k) => byKey.get(k));
    q.relevant.forEach((k, i) => {
      const c = rel[i];
      if (!c) err(`${q.id}: relevant key ${k} does not exist`);
      else if (!READABLE[q.from].includes(c.subject)) err(`${q.id}: ${k} (${c.subject}) is not readable from ${q.from}`);
    });
    if (new Set(q.relevant).size !== q.relevant.length) err(`${q.id}: duplicate relevant key`);
    const cardsOf = rel.filter((c): c is SetCard => !!c);
    if (q.style === 'nonsense') {
      if (q.relevant.length) err(`${q.id}: nonsense question with relevant cards`);
      const qs = [...stems(q.query)];
      const all = cards.find((c) => { const cs = stems(cardText(c)); return qs.every((w) => cs.has(w)); });
      if (qs.length < 2) err(`${q.id}: nonsense question needs at least two content words`);
      else if (all) err(`${q.id}: card ${all.key} contains every content word of the nonsense question`);
    } else if (!q.relevant.length) err(`${q.id}: no relevant cards`);
    if (q.kinds !== undefined) {
      if (q.style !== 'kind') err(`${q.id}: kinds given on a '${q.style}' question`);
      for (const k of q.kinds) if (!topicKinds.has(k) && !episodeKinds.has(k)) err(`${q.id}: unknown kind ${k}`);
      for (const c of cardsOf) if (!q.kinds.includes(c.kind)) err(`${q.id}: relevant ${c.key} is a ${c.kind}, not ${q.kinds.join('/')}`);
    } else if (q.style === 'kind') err(`${q.id}: kind question without kinds`);
    if (q.style === 'paraphrase') {
      const qs = stems(q.query);
      for (const c of cardsOf) {
        const shared = [...stems(cardText(c))].filter((w) => qs.has(w));
        if (shared.length) err(`${q.id}: paraphrase shares ${shared.join(', ')} with ${c.key}`);
      }
    }
    if (q.style === 'quoted') {
      const m = /"([^"]+)"/.exec(q.query);
      if (!m) { err(`${q.id}: quoted question without a "phrase"`); continue; }
      const phrase = m[1]!.toLowerCase();
      const exact = cardsOf.some((c) => cardText(c).toLowerCase().includes(phrase));
      if (!exact) {
        const ps = [...stems(phrase)];
        if (!cardsOf.some((c) => { const cs = stems(cardText(c)); return ps.every((w) => cs.has(w)); })) err(`${q.id}: no relevant card holds the phrase "${phrase}" or all its words`);
        else quotedWordsOnly++;
      }
    }
    if (q.style === 'recent') {
      if (q.relevant.length !== 1 || !cardsOf[0] || cardsOf[0].entity !== 'episode') { err(`${q.id}: a recent question needs exactly one relevant episode`); continue; }
      const target = cardsOf[0];
      const qWords = words(q.query);
      const speaker = qWords.find((w) => speakers.has(w));
      const topicWords = [...new Set(qWords.filter((w) => w !== speaker && !RECENCY.has(w)).map(stem))];
      const need = Math.max(1, Math.ceil(topicWords.length / 2));
      const textOf = (c: SetCard): string => speaker
        ? c.body.split('\n').filter((l) => l.toLowerCase().startsWith(`${speaker}: `)).join(' ')
        : `${c.title} ${c.body}`;
      const candidates = episodes.filter((c) => {
        if (!READABLE[q.from].includes(c.subject)) return false;
        const cs = stems(textOf(c));
        return topicWords.filter((w) => cs.has(w)).length >= need;
      });
      if (!candidates.includes(target)) err(`${q.id}: ${target.key} does not match its own topic words (${topicWords.join(', ')})`);
      else if (candidates.length < 2) err(`${q.id}: no older episode on the same topic (${topicWords.join(', ')})`);
      else {
        const newest = candidates.reduce((a, b) => (a.occurredAt! >= b.occurredAt! ? a : b));
        if (newest !== target) err(`${q.id}: ${newest.key} (${newest.occurredAt}) is newer than ${target.key} on ${topicWords.join(', ')}: ${newest.body.slice(0, 80)}`);
      }
    }
  }
  if (quotedWordsOnly < 7) err(`only ${quotedWordsOnly} quoted questions whose phrase is absent from their cards (need 7)`);

  // Counts
  const count = <T,>(xs: T[], f: (x: T) => string): Record<string, number> => xs.reduce<Record<string, number>>((acc, x) => { const k = f(x); acc[k] = (acc[k] ?? 0) + 1; return acc; }, {});
  const byStyle = count(questions, (q) => q.style);
  for (const [style, min] of Object.entries(MINIMUM)) if ((byStyle[style] ?? 0) < min) err(`only ${byStyle[style] ?? 0} '${style}' questions (need ${min})`);
  if (questions.length < 220) err(`only ${questions.length} questions (need 220)`);
  if (cards.length < 2500 || cards.length > 4000) err(`${cards.length} cards, expected 2,500 to 4,000`);
  const fmt = (r: Record<string, number>) => Object.entries(r).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`).join(', ');
  const report = [
    `cards: ${cards.length} (${fmt(count(cards, (c) => c.entity))})`,
    `cards per subject: ${fmt(count(cards, (c) => c.subject))}`,
    `cards per subject and entity: ${fmt(count(cards, (c) => `${c.subject}/${c.entity}`))}`,
    `episode kinds: ${fmt(count(episodes, (c) => c.kind))}`,
    `episodes from ${episodes[0]?.occurredAt} to ${episodes.at(-1)?.occurredAt}`,
    `questions: ${questions.length}`,
    `questions per style: ${fmt(byStyle)}`,
    `questions per subject: ${fmt(count(questions, (q: SetQuestion) => q.from))}`,
    `quoted questions whose phrase is only in words: ${quotedWordsOnly}`,
    `relevant cards per entity: ${fmt(count(questions.flatMap((q) => q.relevant), (k) => byKey.get(k)?.entity ?? 'missing'))}`,
  ];
  return { errors, report };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { errors, report } = checkSet();
  for (const line of report) console.log(line);
  if (errors.length) {
    console.error(`\n${errors.length} violation(s):`);
    for (const e of errors) console.error(`  ${e}`);
    process.exit(1);
  }
  console.log('\nquestion set OK');
}
