// A labelled question set for measuring search ranking: ~3,000 cards in three subjects (hand-written
// topic cards, hand-written and generated dated episodes, mostly short conversations) and a few hundred
// questions, each labelled with the keys of the cards that answer it. Deterministic.
//
//   npm run build && node dist/bench/questions/check-set.js   (validates the set, prints counts)
import { homelabSessions, novelSessions, personalChats } from './conversations.js';
import { HOMELAB_EPISODES, NOVEL_EPISODES, PERSONAL_EPISODES } from './episodes.js';
import { HOMELAB_TOPICS } from './homelab-topics.js';
import { NOVEL_TOPICS } from './novel-topics.js';
import { PERSONAL_TOPICS } from './personal-topics.js';
import { QUESTIONS } from './questions.js';
import type { EpisodeDraft, SetCard, SetQuestion } from './types.js';

export type { SetCard, SetQuestion, SetSubject, QuestionStyle } from './types.js';

/** Generated volume: filler chats, routine homelab sessions and routine writing notes. */
const PERSONAL_FILLER = 1_900;
const HOMELAB_ROUTINE = 300;
const NOVEL_ROUTINE = 250;

export function questionSet(): { cards: SetCard[]; questions: SetQuestion[] } {
  const drafts: EpisodeDraft[] = [
    ...HOMELAB_EPISODES,
    ...NOVEL_EPISODES,
    ...PERSONAL_EPISODES,
    ...personalChats(PERSONAL_FILLER),
    ...homelabSessions(HOMELAB_ROUTINE),
    ...novelSessions(NOVEL_ROUTINE),
  ].sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keyOf = new Map<string, string>();
  const episodes: SetCard[] = drafts.map((d, i) => {
    const key = `ep/${String(i + 1).padStart(4, '0')}`;
    if (keyOf.has(d.id)) throw new Error(`duplicate episode id ${d.id}`);
    keyOf.set(d.id, key);
    return { key, subject: d.subject, entity: 'episode', kind: d.kind, title: d.title, body: d.body, occurredAt: d.occurredAt, ...(d.tags ? { tags: d.tags } : {}) };
  });
  const cards = [...HOMELAB_TOPICS, ...NOVEL_TOPICS, ...PERSONAL_TOPICS, ...episodes];
  const questions: SetQuestion[] = QUESTIONS.map(([id, from, style, query, relevant, kinds]) => ({
    id,
    from,
    query,
    style,
    relevant: relevant.map((r) => {
      if (!r.startsWith('@')) return r;
      const key = keyOf.get(r.slice(1));
      if (!key) throw new Error(`question ${id}: no episode ${r}`);
      return key;
    }),
    ...(kinds ? { kinds } : {}),
  }));
  return { cards, questions };
}
