// The keyword evidence search's relevance reads for each candidate (relevance.ts): which of the
// question's words a card holds, a longer word they begin counting from four characters, and
// whether the question names the card's whole title. Read straight from gatherEvidence, on both
// databases, with words a tsquery would parse as operators or quotes in the question.
import { beforeAll, expect, it } from 'vitest';
import { createTopic, type BrainContext } from '../../services/knowledge/index.js';
import { gatherEvidence } from '../../services/search/relevance.js';
import { cardKey, type CardRef } from '../../services/search/types.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOnBothDatabases('relevance evidence', (brain) => {
  let homelab: BrainContext;
  const refs: Record<string, CardRef> = {};
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    const cards: [string, string, string][] = [
      ['tool/restic', 'restic', 'Deduplicating backup program; snapshots go to the NAS every night.'],
      ['environment/ups', 'UPS', 'An APC unit with twenty minutes of runtime; NUT shuts the servers down cleanly.'],
      ['environment/switch', 'Core switch', 'A 24-port managed switch in the hall cupboard.'],
    ];
    for (const [slug, title, body] of cards) {
      const t = await createTopic(homelab, { slug, kind: 'tool', title, body });
      refs[slug] = { subject: 'homelab', entity: 'topic', id: t.id };
    }
  });

  const evidenceOf = async (text: string, slug: string) => {
    const all = await gatherEvidence(homelab.db, Object.values(refs), { text, subjectsWithVectors: [] });
    expect(all.size).toBe(3);
    return all.get(cardKey(refs[slug]!))!;
  };

  it('a word of four characters or more counts where it begins a longer word of the card', async () => {
    // "back" begins the card's "backup"; "nas" is held as it is.
    expect((await evidenceOf('back nas', 'tool/restic')).coverage).toBe(1);
    expect((await evidenceOf('back nas', 'environment/switch')).coverage).toBe(0);
  });

  it('a shorter word counts only as it is: "run" does not count for "runtime"', async () => {
    const ups = await evidenceOf('run servers', 'environment/ups');
    expect(ups.coverage).toBeGreaterThan(0); // "servers"
    expect(ups.coverage).toBeLessThan(1);
  });

  it('quotes, backslashes and tsquery operators in the question are words, not syntax', async () => {
    const e = await evidenceOf(String.raw`o'neil's C:\restic "nas" & | ! <-> :* backup`, 'tool/restic');
    expect(e.coverage).toBeGreaterThan(0);
    expect(e.titleInQuery).toBe(true);
  });

  it('a question that holds every word of a title names the card', async () => {
    expect((await evidenceOf('what was the core switch again?', 'environment/switch')).titleInQuery).toBe(true);
    expect((await evidenceOf('what was the core switch again?', 'environment/ups')).titleInQuery).toBe(false);
    expect((await evidenceOf('which switch?', 'environment/switch')).titleInQuery).toBe(false);
  });
});
