// The deny-list runs inside Postgres: raw SQL by a project role writing into personal is
// refused on every PII category and subject token, ordinary sentences pass, the refusal
// never names the token or its subject, and no subject role can read the rules.
import { beforeAll, expect, it } from 'vitest';
import { parseDenyList } from '../../config/deny-list.js';
import { syncDenyList } from '../../db/sync-deny-list.js';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { roleOf } from '../support/knowledge.js';
import { MUST_PASS, MUST_REFUSE } from '../fixtures/deny-corpus.js';

const TOKENS = ['nas01', 'pve01', 'homelab.lan', 'unifi-gw', 'aldric', 'vane', 'mirewood', 'thornhollow'];

describeOnBothDatabases('deny-list on writes into personal', (brain) => {
  let homelab: string;
  beforeAll(() => {
    homelab = roleOf(brain(), 'homelab');
  });

  const insertAsHomelab = (text: string, column = 'body') =>
    brain().asRole(homelab, (s) =>
      s.query(`INSERT INTO personal.topics (slug, kind, title, ${column === 'title' ? '' : `${column}, `}summary) VALUES ('corpus/item', 'concept', ${column === 'title' ? '$1' : "'Corpus item'"}, ${column === 'title' ? '' : '$1, '}'')`, [text]),
    );

  it(`refuses all ${MUST_REFUSE.length} deny-listed strings, naming the category and never the token or subject`, async () => {
    expect(MUST_REFUSE.length).toBeGreaterThanOrEqual(40);
    const wrong: string[] = [];
    for (const { text, label } of MUST_REFUSE) {
      try {
        await insertAsHomelab(text);
        wrong.push(`passed: ${JSON.stringify(text)}`);
      } catch (error) {
        const e = error as { code?: string; message: string; hint?: string; detail?: string };
        if (e.code !== 'BRD01') wrong.push(`${JSON.stringify(text)}: ${e.code} ${e.message}`);
        else if (!e.message.includes(label)) wrong.push(`${JSON.stringify(text)}: expected "${label}" in "${e.message}"`);
        const said = `${e.message} ${e.hint ?? ''} ${e.detail ?? ''}`.toLowerCase();
        for (const leak of [...TOKENS, 'homelab', 'novel', 'book']) if (said.includes(leak)) wrong.push(`${JSON.stringify(text)}: refusal mentions "${leak}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`lets all ${MUST_PASS.length} ordinary sentences through`, async () => {
    expect(MUST_PASS.length).toBeGreaterThanOrEqual(40);
    const wrong: string[] = [];
    for (const text of MUST_PASS) {
      const got = await outcome(() => insertAsHomelab(text));
      if (got !== 'ok') wrong.push(`${JSON.stringify(text)}: ${got}`);
    }
    expect(wrong).toEqual([]);
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
      expect(await outcome(() => brain().asRole(role, (s) => s.query("SELECT brain_private.deny_hit('nas01')")))).toBe('42501');
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
});
