// The deny-list runs inside Postgres: raw SQL by a project role writing into personal is
// refused on every PII category and subject token, however it is spelled (the variants an
// outside attack run got through, issue 15), ordinary sentences pass, the refusal never
// names the token or its subject, no subject role can read the rules, and an upcast takes
// its personal slug from the generic title. The whole corpus, on every route:
// deny-list-corpus.test.ts.
import { beforeAll, expect, it } from 'vitest';
import { parseDenyList } from '../../config/deny-list.js';
import { syncDenyList } from '../../db/sync-deny-list.js';
import { BrainError, createTopic, upcast } from '../../services/knowledge/index.js';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';

const TOKENS = ['nas01', 'pve01', 'homelab.lan', 'unifi-gw', 'aldric', 'vane', 'mirewood', 'thornhollow', 'ilsabet', 'marrow', 'synod', 'vlan'];

/** Issue 15: variants of a listed token that all passed, by raw SQL and by upcast, while the plain token was refused. */
const ISSUE_VARIANTS: readonly [string, string][] = [
  ['no-break space', 'Ilsabet\u00a0Marrow keeps the ledger'],
  ['zero-width space', 'Ils\u200babet Marrow keeps the ledger'],
  ['soft hyphen', 'Ilsa\u00adbet Marrow keeps the ledger'],
  ['Cyrillic а', 'Ils\u0430bet Marrow keeps the ledger'],
  ['full-width letters', '\uff29\uff4c\uff53\uff41\uff42\uff45\uff54 \uff2d\uff41\uff52\uff52\uff4f\uff57 keeps the ledger'],
  ['combining accent', 'Ilsa\u0301bet Marrow keeps the ledger'],
  ['markdown emphasis', '**Ilsabet** Marrow keeps the ledger'],
  ['hyphenated', 'the ilsabet-marrow thread'],
  ['underscored', 'the ilsabet_marrow thread'],
  ['CamelCase', 'class IlsabetMarrow'],
  ['hyphenated line break', 'Ilsa-\nbet Marrow keeps the ledger'],
  ['&nbsp;', 'Ilsabet&nbsp;Marrow keeps the ledger'],
  ['%20', 'Ilsabet%20Marrow keeps the ledger'],
  ['without its article', 'Glass Synod records were sealed'],
  ['vlan40', 'move the printer to vlan40'],
  ['VLAN-40', 'VLAN-40 carries the cameras'],
  ['leading zeros', 'the box at 192.168.040.001'],
  ['defanged IP', 'the box at 192[.]168[.]1[.]20'],
  ['defanged IP, parentheses', 'the box at 192(.)168(.)1(.)20'],
  ['spelled-out e-mail', 'write to name at example dot com'],
  ['bracketed e-mail', 'write to name [at] example [dot] com'],
  ['JSON escape', '{"who": "\\u0041ldric Vane"}'],
  ['plural', 'two Ilsabet Marrows in the census'],
  ['possessive', "Ilsabet Marrow's ledger"],
  ['keyless secret', 'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['connection string', 'postgres://u:p@h/db'],
];

/** Issue 15: what was refused and should not have been. */
const ISSUE_FALSE_POSITIVES = ['http://127.0.0.1:7701/mcp', 'Python 3.11.7.1', '1.5.2.0 in the old scheme', 'http://localhost:3000/health'];

describeOnBothDatabases('deny-list on writes into personal', (brain) => {
  let homelab: string;
  beforeAll(() => {
    homelab = roleOf(brain(), 'homelab');
  });

  const insertAsHomelab = (text: string, column = 'body') =>
    brain().asRole(homelab, (s) =>
      s.query(`INSERT INTO personal.topics (slug, kind, title, ${column === 'title' ? '' : `${column}, `}summary) VALUES ('corpus/item', 'concept', ${column === 'title' ? '$1' : "'Corpus item'"}, ${column === 'title' ? '' : '$1, '}'')`, [text]),
    );

  it(`refuses every variant of a listed word the issue found (${ISSUE_VARIANTS.length}), naming the field and class, never the word or subject`, async () => {
    const wrong: string[] = [];
    for (const [name, text] of ISSUE_VARIANTS) {
      try {
        await insertAsHomelab(text);
        wrong.push(`passed: ${name} ${JSON.stringify(text)}`);
      } catch (error) {
        const e = error as { code?: string; message: string; hint?: string; detail?: string };
        if (e.code !== 'BRD01') wrong.push(`${name}: ${e.code} ${e.message}`);
        else if (!/^refused by the deny-list: the body of this topic write into personal contains (a word tied to a project|an IP address|an e-mail address|a secret \(a key, token or password\))$/.test(e.message)) wrong.push(`${name}: ${e.message}`);
        const said = `${e.message} ${e.hint ?? ''} ${e.detail ?? ''}`.toLowerCase();
        for (const leak of [...TOKENS, 'homelab', 'novel', 'book']) if (said.includes(leak)) wrong.push(`${name}: refusal mentions "${leak}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('lets loopback addresses and version strings through, which it used to take for IP addresses', async () => {
    for (const text of ISSUE_FALSE_POSITIVES) expect(await outcome(() => insertAsHomelab(text)), text).toBe('ok');
  });

  it('scans every field and table of personal, and only personal', async () => {
    expect(await outcome(() => insertAsHomelab('Runbook for nas01', 'title'))).toBe('BRD01');
    expect(await outcome(() => insertAsHomelab('{"host": "nas01"}', 'frontmatter'))).toBe('BRD01');
    const viaTag = await outcome(() =>
      brain().asRole(homelab, async (s) => {
        const [t] = await s.query<{ id: number }>("INSERT INTO personal.topics (slug, kind, title) VALUES ('x/y', 'concept', 'Fine') RETURNING id");
        await s.query('INSERT INTO personal.topic_tags (topic_id, tag) VALUES ($1, $2)', [t!.id, 'mirewood']);
      }),
    );
    expect(viaTag).toBe('BRD01');
    const viaEpisode = await outcome(() =>
      brain().asRole(homelab, (s) => s.query("INSERT INTO personal.episodes (kind, title, detail, occurred_at) VALUES ('note', 'Call', 'ring +44 20 7946 0958', now())")),
    );
    expect(viaEpisode).toBe('BRD01');
    // The same text is fine in the project's own schema.
    expect(await outcome(() => brain().asRole(homelab, (s) => s.query("INSERT INTO homelab.topics (slug, kind, title, body) VALUES ('h/1', 'environment', 'NAS', 'nas01 at 192.168.1.20')")))).toBe('ok');
    // Personal's own writes are scanned too.
    expect(await outcome(() => brain().asRole(roleOf(brain(), 'personal'), (s) => s.query("INSERT INTO personal.topics (slug, kind, title, body) VALUES ('p/1', 'concept', 'x', 'nas01')")))).toBe('BRD01');
    // An update is scanned like an insert.
    expect(
      await outcome(() =>
        brain().asRole(homelab, async (s) => {
          await s.query("INSERT INTO personal.topics (slug, kind, title) VALUES ('x/z', 'concept', 'Fine')");
          await s.query("UPDATE personal.topics SET summary = 'see Thornhollow' WHERE slug = 'x/z'");
        }),
      ),
    ).toBe('BRD01');
  });

  it('an upcast reason is scanned too, since every project reads personal\'s outbox', async () => {
    const got = await outcome(() =>
      brain().asRole(homelab, (s) => s.exec("SELECT set_config('brain.reason', 'learnt while fixing nas01', true); INSERT INTO personal.topics (slug, kind, title) VALUES ('r/1', 'concept', 'Generic')")),
    );
    expect(got).toBe('BRD01');
  });

  it('no subject role can read the rules or call the matcher', async () => {
    for (const subject of ['personal', 'homelab', 'novel']) {
      const role = roleOf(brain(), subject);
      expect(await outcome(() => brain().asRole(role, (s) => s.query('SELECT * FROM brain_private.deny_rules')))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query('SELECT * FROM brain_private.deny_allow')))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query('SELECT * FROM brain_private.deny_screen')))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query("SELECT brain_private.deny_hit('nas01')")))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query("SELECT brain_private.deny_fold('nas01')")))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query("SELECT brain_private.deny_token_pattern(ARRAY['x'])")))).toBe('42501');
    }
    expect(await outcome(() => brain().asRole(brain().config.auditRole, (s) => s.query('SELECT * FROM brain_private.deny_rules')))).toBe('42501');
  });

  it('an edited deny-list applies on the next sync, without a migration; allow clears a string', async () => {
    const edited = parseDenyList('subjects:\n  homelab: [kestrel]\nallow:\n  - kestrel-free\n', 'edited');
    await syncDenyList(brain().admin, edited);
    try {
      expect(await outcome(() => insertAsHomelab('the kestrel box'))).toBe('BRD01');
      expect(await outcome(() => insertAsHomelab('kestrel-free zone'))).toBe('ok');
      expect(await outcome(() => insertAsHomelab('nas01 is no longer listed'))).toBe('ok');
    } finally {
      await brain().bootstrap();
    }
    expect(await outcome(() => insertAsHomelab('nas01 is listed again'))).toBe('BRD01');
  });
  it('an upcast takes its personal slug from the generic title, never from the project card; a slug is scanned like any text', async () => {
    const project = await contextFor(brain(), 'novel');
    await createTopic(project, { slug: 'characters/ilsabet-marrow-s1', kind: 'character', title: 'Ilsabet Marrow', body: 'Season one notes.' });
    // The generic version: its own title and body; the slug comes from them.
    const r = await upcast(project, { slug: 'characters/ilsabet-marrow-s1', reason: 'a way to keep any cast list', title: 'Keeping a ledger of characters', body: 'One line per character, updated each chapter.' });
    expect(r.personal.slug).toBe('character/keeping-a-ledger-of-characters');
    expect(await brain().admin.query("SELECT slug FROM personal.topics WHERE slug LIKE 'characters/%' OR slug LIKE '%ilsabet%'")).toEqual([]);
    // Without a generic title the project's title is used, and refused.
    const refused = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return 'written';
      } catch (e) {
        return e instanceof BrainError ? `${e.code}: ${e.message}` : String(e);
      }
    };
    expect(await refused(() => upcast(project, { slug: 'characters/ilsabet-marrow-s1', reason: 'generic', body: 'generic text' }))).toMatch(
      /^denied_by_deny_list: upcast refused: refused by the deny-list: the (slug|title) of this topic write into personal contains a word tied to a project$/,
    );
    // An explicit personal slug carrying the name is refused, naming the slug.
    expect(
      await refused(() => upcast(project, { slug: 'characters/ilsabet-marrow-s1', personalSlug: 'characters/ilsabet-marrow-s1', reason: 'generic', title: 'Ledgers', body: 'generic text' })),
    ).toBe('denied_by_deny_list: upcast refused: refused by the deny-list: the slug of this topic write into personal contains a word tied to a project');
    expect(await outcome(() => brain().asRole(homelab, (s) => s.query("INSERT INTO personal.topics (slug, kind, title) VALUES ('places/mire-wood-s2', 'concept', 'Places')")))).toBe('ok');
    expect(await outcome(() => brain().asRole(homelab, (s) => s.query("INSERT INTO personal.topics (slug, kind, title) VALUES ('places/mirewood-s2', 'concept', 'Places')")))).toBe('BRD01');
  });
});
