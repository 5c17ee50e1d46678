// One spelling per tag: normaliseTag's rule, and every path that writes a tag (create,
// remember, tag, propose/commit, brain put, GBrain import) storing it through insertTags.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitProposal, propose } from '../../services/curation/proposals.js';
import { importBrain } from '../../services/gbrain/import.js';
import { putPage } from '../../services/gbrain/put.js';
import { BrainError, createTopic, listTopics, normaliseTag, normaliseTags, tagTopic, type BrainContext } from '../../services/knowledge/index.js';
import { remember } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

describe('normaliseTag', () => {
  it('lowercases, joins words with -, drops what is not a letter, digit or - . / + #', () => {
    const cases: [string, string][] = [
      ['Bad Tag!!', 'bad-tag'],
      ['YC Alum', 'yc-alum'],
      ['yc_alum', 'yc-alum'],
      ['  yc -- alum ', 'yc-alum'],
      ['C++', 'c++'],
      ['C#', 'c#'],
      ['node.js', 'node.js'],
      ['lang/python', 'lang/python'],
      ['東京', '東京'],
      ['Zoë', 'zoë'],
      ['Zoe\u0308', 'zoë'], // decomposed ë is stored composed
      ['2024', '2024'],
      ['-edge-', 'edge'],
      ['why?', 'why'],
    ];
    expect(cases.length).toBe(14);
    for (const [given, stored] of cases) expect(normaliseTag(given), given).toBe(stored);
    for (const [, stored] of cases) expect(normaliseTag(stored), `idempotent: ${stored}`).toBe(stored);
  });

  it('a tag with no letter or digit is refused, naming its place in the list', () => {
    expect(normaliseTag('!!!')).toBeUndefined();
    expect(normaliseTag('- _ -')).toBeUndefined();
    let error: unknown;
    try {
      normaliseTags(['ok', '???']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrainError);
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'tags[1]' } });
    expect((error as BrainError).message).toBe('tags[1]: the tag "???" has no letters or digits');
  });

  it('reports each renamed tag once, and keeps one of each spelling', () => {
    expect(normaliseTags(['Off Site', 'off-site', 'backup', 'Off Site'])).toEqual({ tags: ['off-site', 'backup'], renamed: [{ from: 'Off Site', to: 'off-site' }] });
  });
});

describeOnBothDatabases('every path stores a tag normalised', (brain) => {
  let homelab: BrainContext;
  let dir: string;
  const tagsOf = async (slug: string) =>
    (await brain().admin.query<{ tag: string }>('SELECT tag FROM homelab.topic_tags tt JOIN homelab.topics t ON t.id = tt.topic_id WHERE t.slug = $1 ORDER BY tag', [slug])).map((r) => r.tag);

  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    dir = mkdtempSync(join(tmpdir(), 'brain-tags-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('create, tag, remember, propose/commit, put and import', async () => {
    await createTopic(homelab, { slug: 'tool/a', kind: 'tool', title: 'Alpha tool', tags: ['Bad Tag!!', 'bad_tag'] });
    expect(await tagsOf('tool/a')).toEqual(['bad-tag']);

    const tagged = await tagTopic(homelab, { slug: 'tool/a', tags: ['Off Site'] });
    expect(tagged).toEqual({ tags: ['bad-tag', 'off-site'], renamed: [{ from: 'Off Site', to: 'off-site' }] });
    // Untagging by the spelling given finds the stored one.
    expect((await tagTopic(homelab, { slug: 'tool/a', tags: ['OFF SITE'], remove: true })).tags).toEqual(['bad-tag']);

    const r = await remember(homelab, { kind: 'tool', title: 'Bravo utility', body: 'Copies files.', tags: ['Copy Tool'] });
    expect(r.renamedTags).toEqual([{ from: 'Copy Tool', to: 'copy-tool' }]);
    expect(await tagsOf(r.card.slug)).toEqual(['copy-tool']);

    const p = await propose(homelab, { items: [{ type: 'topic', kind: 'tool', slug: 'tool/c', title: 'Charlie program', tags: ['Session Close'] }] });
    expect(p.items[0]!.renamedTags).toEqual([{ from: 'Session Close', to: 'session-close' }]);
    expect(p.preview).toContain('tag "session-close" (from "Session Close")');
    await commitProposal(homelab, p.id, undefined);
    expect(await tagsOf('tool/c')).toEqual(['session-close']);
    const refused = await propose(homelab, { items: [{ type: 'topic', kind: 'tool', slug: 'tool/d', title: 'Delta program', tags: ['!!'] }] });
    expect(refused.items[0]!.action).toBe('✗');
    expect(refused.items[0]!.problem).toContain('tags[0]: the tag "!!" has no letters or digits');

    await putPage(homelab, { slug: 'people/ada', markdown: '---\ntitle: Ada\ntags: [Math Genius, "!!"]\n---\n\nFirst programmer.\n', kind: 'person' });
    expect(await tagsOf('people/ada')).toEqual(['math-genius']);
    await putPage(homelab, { slug: 'people/ada', markdown: '---\ntitle: Ada\ntags: [Poet]\n---\n\nFirst programmer.\n' });
    expect(await tagsOf('people/ada')).toEqual(['math-genius', 'poet']);

    mkdirSync(join(dir, 'people'));
    writeFileSync(join(dir, 'people/grace.md'), '---\ntitle: Grace\ntags: [Navy Officer, navy_officer, COBOL]\n---\n\nCompilers.\n');
    const report = await importBrain(homelab, dir);
    expect(report.pages).toMatchObject({ created: 1, failed: 0 });
    expect(await tagsOf('people/grace')).toEqual(['cobol', 'navy-officer']);
    // The page keeps its own spelling (export writes the page back from it).
    const [fm] = await brain().admin.query<{ fm: string }>("SELECT frontmatter::text AS fm FROM homelab.topics WHERE slug = 'people/grace'");
    expect(JSON.parse(fm!.fm).tags).toEqual(['Navy Officer', 'navy_officer', 'COBOL']);

    // No raw insert is left: nothing in the subject holds a tag other than its normal form.
    const all = await brain().admin.query<{ tag: string }>('SELECT DISTINCT tag FROM homelab.topic_tags ORDER BY tag');
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const { tag } of all) expect(normaliseTag(tag), tag).toBe(tag);
  });

  it('list by tag finds the stored spelling from any spelling of it', async () => {
    expect((await listTopics(homelab, { tag: 'Navy Officer' })).map((t) => t.slug)).toEqual(['people/grace']);
    expect((await listTopics(homelab, { tag: 'navy-officer' })).map((t) => t.slug)).toEqual(['people/grace']);
  });
});
