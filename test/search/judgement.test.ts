// Issue 14's judgement, end to end on both databases (keyword evidence; the offline embedder's
// is measured by the benches): a relevance on every hit and "nothing relevant" below the floor,
// quoted phrases that fall back to their words, possible duplicates flagged rather than merged,
// links that carry the sentence naming their card, and propose making the same decision.
import { beforeAll, expect, it } from 'vitest';
import { commitProposal, propose } from '../../services/curation/proposals.js';
import { searchPlanner } from '../../services/curation/search-planner.js';
import { archiveTopic, createTopic, getTopic, type BrainContext } from '../../services/knowledge/index.js';
import { kindsNamed, MAX_LINKS, remember, renderSearchAnswer, search } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describeOnBothDatabases('search judgement', (brain) => {
  let homelab: BrainContext;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    const cards: [string, string, string, string][] = [
      ['tool/restic', 'tool', 'restic', 'Deduplicating backup program; snapshots go to the NAS every night at 2am.'],
      ['environment/nas', 'environment', 'NAS', 'A Synology DS920+ with four 8 TB disks in SHR; SMB shares for media and a share for backups.'],
      ['environment/router', 'environment', 'Router', 'OPNsense on a fanless box; VLANs for the cameras and the guests.'],
      ['environment/ups', 'environment', 'UPS', 'An APC unit with twenty minutes of runtime; NUT shuts the servers down cleanly.'],
      ['environment/switch', 'environment', 'Core switch', 'A 24-port managed switch in the hall cupboard; trunk to the router.'],
      ['environment/proxmox', 'environment', 'Proxmox host', 'Runs the containers; backups of its guests go to the NAS.'],
      ['methodology/backup-window', 'methodology', 'Night jobs', 'The window for backups is 1am to 5am; nothing else heavy runs then.'],
    ];
    for (const [slug, kind, title, body] of cards) await createTopic(homelab, { slug, kind, title, body });
  });

  it('every hit has a relevance; a question nothing answers says so and names its weakest guesses, minRelevance 0 shows them', async () => {
    const r = await search(homelab, { query: 'what does restic back up to the NAS every night?', mode: 'keyword' });
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits[0]!.slug).toBe('tool/restic');
    for (const h of r.hits) expect(h.relevance).toBeGreaterThan(0);
    expect(renderSearchAnswer(r)).toMatch(/^- homelab:tool\/restic · tool · restic · relevance \d\.\d\d \[keyword\]$/m);

    // Shares one incidental word ("night") with a card, and nothing else.
    const nonsense = await search(homelab, { query: 'best chocolate cake recipe for a birthday night out', mode: 'keyword' });
    expect(nonsense.hits).toEqual([]);
    expect(nonsense.belowFloor).toBeGreaterThan(0);
    expect(nonsense.weakMatches?.length).toBeGreaterThan(0);
    const text = renderSearchAnswer(nonsense);
    expect(text).toMatch(/^Nothing relevant found\. .*Weakest guesses, not shown: homelab:/m);
    expect(text).toContain('minRelevance: 0');
    const all = await search(homelab, { query: 'best chocolate cake recipe for a birthday night out', mode: 'keyword', minRelevance: 0 });
    expect(all.hits.length).toBe(nonsense.belowFloor);
  });

  it('with no limit the answer stops where relevance drops; a limit shows every hit of an answered question', async () => {
    const q = 'backups to the NAS';
    const open = await search(homelab, { query: q, mode: 'keyword' });
    const limited = await search(homelab, { query: q, mode: 'keyword', limit: 10 });
    expect(open.hits.length).toBeGreaterThan(0);
    expect(limited.hits.length).toBeGreaterThan(open.hits.length);
    const best = open.hits[0]!.relevance;
    for (const h of open.hits) expect(h.relevance).toBeGreaterThanOrEqual(best * 0.3 - 0.001);
  });

  it('a quoted phrase no card holds falls back to its words, with a warning', async () => {
    const r = await search(homelab, { query: '"nightly backup window"', mode: 'keyword' });
    expect(r.hits.map((h) => h.slug)).toContain('methodology/backup-window');
    expect(r.warnings.join(' ')).toMatch(/quoted phrase\(s\) "nightly backup window" as written; their words were searched instead/);
    // A phrase that is there stays strict.
    const strict = await search(homelab, { query: '"managed switch"', mode: 'keyword' });
    expect(strict.hits.map((h) => h.slug)).toEqual(['environment/switch']);
    expect(strict.warnings).toEqual([]);
  });

  it('a kind named in the question is recognised, singular or plural, by its name or first part', () => {
    const kinds = ['decision', 'decision-made', 'meeting', 'tool', 'chapter-summary', 'chapter-write', 'note'];
    expect([...kindsNamed('which decisions did we take about DNS?', kinds)].sort()).toEqual(['decision', 'decision-made']);
    expect([...kindsNamed('the meeting with the landlord', kinds)]).toEqual(['meeting']);
    expect([...kindsNamed('summarise chapters one to three', kinds)].sort()).toEqual(['chapter-summary', 'chapter-write']);
    expect(kindsNamed('how do I restart the backups', kinds).size).toBe(0);
  });

  it('a possible duplicate is written new and flagged, never merged; links carry the sentence that names their card', async () => {
    const r = await remember(homelab, {
      kind: 'environment',
      title: 'Synology storage box',
      body: 'The Synology DS920+ in the hall holds the media shares and the backups. restic writes its snapshots there.',
    });
    expect(r.action).toBe('created-flagged');
    expect(r.possibleDuplicates.map((d) => d.slug)).toContain('environment/nas');
    expect(r.card.slug).toBe('environment/synology-storage-box');
    const nas = await getTopic(homelab, { slug: 'environment/nas' });
    expect(nas.body).not.toContain('hall');
    expect(r.linkedTo.length).toBeGreaterThan(0);
    expect(r.linkedTo.length).toBeLessThanOrEqual(MAX_LINKS);
    const card = await getTopic(homelab, { slug: r.card.slug, include: ['links'] });
    expect(card.links!.length).toBe(r.linkedTo.length);
    const toRestic = card.links!.find((l) => l.toSlug === 'tool/restic');
    expect(toRestic, JSON.stringify(card.links)).toBeDefined();
    expect(toRestic!.context).toMatch(/^related \(p \d\.\d+\): "restic writes its snapshots there\."$/);
    // The decision and the flag are in the outbox with the write.
    const [row] = await brain().admin.query<{ detail: { decision: string; candidates: { slug: string; verdict: string }[] } }>(
      "SELECT detail FROM homelab.outbox WHERE table_name = 'topics' AND slug = $1 AND operation = 'INSERT'",
      [r.card.slug],
    );
    expect(row!.detail.decision).toBe('created-flagged');
    expect(row!.detail.candidates.find((c) => c.slug === 'environment/nas')!.verdict).toBe('possible-duplicate');
    // Archived (as the person would, merging it), so the next test weighs the NAS card alone.
    await archiveTopic(homelab, { slug: r.card.slug, reason: 'the same as environment/nas' });
  });

  it('propose decides as remember does: its preview names the flag and the links, and commit writes the links', async () => {
    const p = await propose(
      homelab,
      { items: [{ type: 'topic', kind: 'environment', title: 'Synology DS920+ storage', body: 'The NAS box in the hall cupboard; restic snapshots land on it every night.' }] },
      { planner: searchPlanner({}) },
    );
    expect(p.preview).toMatch(/\[1\] \+ topic\s+environment\s+"Synology DS920\+ storage"/);
    expect(p.preview).toMatch(/may be the same as homelab:environment\/nas "NAS"/);
    expect(p.preview).toMatch(/links to .*homelab:tool\/restic/);
    const planned = p.items[0]!;
    expect(planned.links!.length).toBeGreaterThan(0);
    const outcomes = await commitProposal(homelab, p.id, undefined);
    expect(outcomes.map((o) => o.result)).toEqual(['written']);
    const card = await getTopic(homelab, { slug: planned.slug!, include: ['links'] });
    expect(card.links!.map((l) => l.toSlug).sort()).toEqual(planned.links!.map((l) => l.slug).sort());
  });
});
