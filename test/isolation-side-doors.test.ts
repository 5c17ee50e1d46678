// Side doors into personal (issue 15): what a project role could write into personal, or do
// to it, past the deny-list, past history, or past the other subjects' availability, by
// plain SQL. Every check runs as the role itself (a login on the server, SET LOCAL ROLE on
// PGlite), so it holds for a psql user as much as for our code.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, inject, it } from 'vitest';
import pg from 'pg';
import { bootstrap } from '../db/bootstrap.js';
import { ident } from '../db/sql.js';
import { describeOnBothDatabases, outcome } from './support/both-databases.js';
import { DENY_LIST, KINDS } from './support/brains.js';
import { findPostgresBinaries } from './support/postgres-server.js';

/** A word of another subject's deny-list tokens (deny-list.yaml, subject novel). */
const WORD = 'Mirewood';
const SHA = (c: string) => c.repeat(64);
const STRONG_LOCKS = ['SHARE UPDATE EXCLUSIVE', 'SHARE', 'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE'];

describeOnBothDatabases('side doors into personal', (brain, target) => {
  let homelab: string;
  let personal: string;
  let audit: string;
  let cardId: number;
  let docId: number;

  beforeAll(async () => {
    const cfg = brain().config;
    homelab = cfg.subjects.find((s) => s.name === 'homelab')!.role;
    personal = cfg.subjects.find((s) => s.name === 'personal')!.role;
    audit = cfg.auditRole;
    const a = brain().admin;
    [{ id: cardId }] = (await a.query<{ id: number }>(
      "INSERT INTO personal.topics (slug, kind, title, body) VALUES ('shared/card', 'concept', 'Shared card', 'generic text') RETURNING id::int AS id",
    )) as [{ id: number }];
    await a.query("INSERT INTO personal.topics (slug, kind, title) VALUES ('shared/other', 'concept', 'Other card')");
    await a.query("INSERT INTO personal.topic_tags (topic_id, tag) VALUES ($1, 'generic')", [cardId]);
    await a.query("INSERT INTO personal.links (from_topic_id, to_subject, to_slug, context) VALUES ($1, 'personal', 'shared/other', 'see also')", [cardId]);
    [{ id: docId }] = (await a.query<{ id: number }>(
      "INSERT INTO personal.documents (title, content, sha256) VALUES ('A document', 'generic words', $1) RETURNING id::int AS id",
      [SHA('a')],
    )) as [{ id: number }];
    await a.query("INSERT INTO personal.sources (topic_id, document_id, quote) VALUES ($1, $2, 'a quote')", [cardId, docId]);
    await a.query("INSERT INTO personal.raw_data (topic_id, source, data) VALUES ($1, 'crawler', '{\"k\": \"v\"}')", [cardId]);
    await a.query("INSERT INTO homelab.topics (slug, kind, title) VALUES ('own/card', 'concept', 'Own card')");
  });

  /** Runs a script as a role, with an upcast's reason set as our code sets it; rolled back. */
  const as = (role: () => string, sql: string, params: unknown[] = []) =>
    outcome(() =>
      brain().asRole(role(), async (s) => {
        await s.query("SELECT set_config('brain.reason', 'generic knowledge', true)");
        return params.length > 0 ? s.query(sql, params) : s.exec(sql);
      }),
    );
  const rows = <R>(role: () => string, sql: string, params: unknown[] = []) => brain().asRole(role(), (s) => s.query<R>(sql, params));

  // ---------------------------------------------------------------- everything is scanned

  it('a clean upcast by plain SQL still passes every guard (the scans refuse words, not writes)', async () => {
    expect(
      await as(
        () => homelab,
        `SELECT set_config('brain.operation', 'remember', true), set_config('brain.detail', '{"why": "generic"}', true);
         INSERT INTO personal.topics (slug, kind, title, frontmatter) VALUES ('side/clean', 'concept', 'Clean', '{"tags": ["a"], "note": "plain"}');
         INSERT INTO personal.documents (title, media_type, content, sha256) VALUES ('d', 'text/plain', 'words', '${SHA('b')}');
         INSERT INTO personal.raw_data (topic_id, source, data) VALUES (${cardId}, 'other', '{"x": [1, "two", {"three": null}]}');
         INSERT INTO personal.links (from_topic_id, to_subject, to_slug, context) VALUES (${cardId}, 'personal', 'shared/other', 'see also')
           ON CONFLICT (from_topic_id, to_subject, to_slug, relation) DO UPDATE SET context = EXCLUDED.context;
         UPDATE personal.topics SET summary = 'amended' WHERE id = ${cardId}`,
      ),
    ).toBe('ok');
  });

  it("the outbox's operation text set by a project is scanned", async () => {
    expect(
      await as(
        () => homelab,
        `SELECT set_config('brain.operation', 'notes about ${WORD}', true);
         INSERT INTO personal.topics (slug, kind, title) VALUES ('side/op', 'concept', 'Generic')`,
      ),
    ).toBe('BRD01');
  });

  it("the outbox's decision (detail) is scanned after its JSON escapes are decoded", async () => {
    expect(
      await as(
        () => homelab,
        `SELECT set_config('brain.detail', '{"d": "\\u004direwood"}', true);
         INSERT INTO personal.topics (slug, kind, title) VALUES ('side/detail', 'concept', 'Generic')`,
      ),
    ).toBe('BRD01');
  });

  it("a document's media type is scanned", async () => {
    expect(
      await as(() => homelab, `INSERT INTO personal.documents (title, media_type, content, sha256) VALUES ('d', 'text/x-${WORD}', 'words', '${SHA('c')}')`),
    ).toBe('BRD01');
  });

  it('JSON columns are scanned decoded: \\u escapes, keys as well as values, duplicate keys', async () => {
    const insertFm = (json: string) => as(() => homelab, "INSERT INTO personal.topics (slug, kind, title, frontmatter) VALUES ('side/fm', 'concept', 'Generic', $1::json)", [json]);
    expect(await insertFm('{"who": "\\u0041ldric Vane"}')).toBe('BRD01');
    expect(await insertFm('{"\\u004direwood": 1}')).toBe('BRD01');
    expect(await insertFm(`{"note": "${WORD}", "note": "generic"}`)).toBe('BRD01');
    expect(await insertFm('{"deep": [{"x": ["\\u0041ldric", "Vane"]}]}')).not.toBe('ok');
    const insertRaw = (json: string) => as(() => homelab, 'INSERT INTO personal.raw_data (topic_id, source, data) VALUES ($1, $2, $3::json)', [cardId, 'side', json]);
    expect(await insertRaw('{"v": "\\u0041ldric Vane"}')).toBe('BRD01');
    expect(await insertRaw('{"\\u004direwood": true}')).toBe('BRD01');
  });

  it('every text and JSON column of the import tables is scanned', async () => {
    expect(
      await as(
        () => homelab,
        "INSERT INTO personal.gbrain_ingest_log (origin, logged_at, source_type, pages_updated) VALUES ('cli', now(), 'note', $1::json)",
        ['["\\u004direwood"]'],
      ),
    ).toBe('BRD01');
    expect(
      await as(
        () => homelab,
        "INSERT INTO personal.gbrain_pages (topic_id, rel_path, original, sha256, fingerprint) VALUES ($1, 'p.md', 'x', $2, $3)",
        [cardId, SHA('d'), WORD],
      ),
    ).toBe('BRD01');
    expect(
      await as(
        () => homelab,
        "INSERT INTO personal.gbrain_pages (topic_id, rel_path, original, sha256, fingerprint, imported) VALUES ($1, 'p.md', 'x', $2, 'f', $3::json)",
        [cardId, SHA('d'), '{"title": "\\u0041ldric Vane"}'],
      ),
    ).toBe('BRD01');
  });

  it('every column that can carry text, of every personal table a project writes, is scanned (read from the catalog)', async () => {
    const a = brain().admin;
    // One clean row in each table that has none yet.
    await a.query("INSERT INTO personal.episodes (kind, occurred_at, title) VALUES ('meeting', now(), 'An episode')");
    await a.query("INSERT INTO personal.gbrain_pages (topic_id, rel_path, original, sha256, fingerprint) VALUES ($1, 'page.md', 'body', $2, 'f')", [cardId, SHA('f')]);
    await a.query("INSERT INTO personal.gbrain_files (rel_path, role, bytes, sha256) VALUES ('index.md', 'special', 'x', $1)", [SHA('f')]);
    await a.query("INSERT INTO personal.gbrain_ingest_log (origin, logged_at, source_type) VALUES ('cli', now(), 'note')");
    const columns = await a.query<{ table: string; column: string; type: string }>(
      `SELECT c.relname AS table, a.attname AS column, t.typname AS type
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_type t ON t.oid = a.atttypid
        WHERE c.relnamespace = 'personal'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          AND has_table_privilege($1, c.oid, 'INSERT') AND c.relname NOT IN ('outbox', 'versions')
          AND t.typcategory NOT IN ('N', 'B', 'D', 'T') AND t.typname NOT IN ('tsvector', 'uuid', 'vector')
          AND NOT brain_private.deny_unscanned(c.relname::text, a.attname::text)
        ORDER BY 1, 2`,
      [homelab],
    );
    expect(columns.length).toBeGreaterThan(30);
    const unscanned: string[] = [];
    for (const { table, column, type } of columns) {
      const value = type === 'json' || type === 'jsonb' ? `'{"k": "\\u004d${WORD.slice(1)}"}'::${type}` : type === 'bytea' ? `convert_to('a ${WORD}', 'UTF8')` : `'a ${WORD}'`;
      const got = await outcome(() =>
        a.exec(`BEGIN; UPDATE personal.${ident(table)} SET ${ident(column)} = ${value} WHERE ctid = (SELECT ctid FROM personal.${ident(table)} LIMIT 1); ROLLBACK`),
      ).finally(() => a.exec('ROLLBACK').catch(() => undefined));
      // links.to_subject may only ever be 'personal' in personal (brain.links_guard, which fires first).
      const refused = table === 'links' && column === 'to_subject' ? ['BRD01', '23514'] : ['BRD01'];
      if (!refused.includes(got)) unscanned.push(`${table}.${column} (${type}): ${got}`);
    }
    expect(unscanned).toEqual([]);
  });

  it("a merged card's target (merged_into) is scanned, whoever writes it", async () => {
    expect(await as(() => personal, `UPDATE personal.topics SET archived_at = now(), merged_into = 'places/${WORD}' WHERE id = ${cardId}`)).toBe('BRD01');
  });

  // ---------------------------------------------------------------- history has no gaps

  it('an id cannot be changed, by a project in personal or by a subject in its own schema', async () => {
    expect(await as(() => homelab, `UPDATE personal.topics SET id = DEFAULT WHERE id = ${cardId}`)).toBe('42501');
    expect(await as(() => personal, `UPDATE personal.topics SET id = DEFAULT WHERE id = ${cardId}`)).toBe('42501');
    expect(await as(() => homelab, "UPDATE homelab.topics SET id = DEFAULT WHERE slug = 'own/card'")).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.links SET id = DEFAULT WHERE from_topic_id = ${cardId}`)).toBe('42501');
  });

  it('OVERRIDING SYSTEM VALUE cannot plant an id, in personal or in a subject\'s own schema', async () => {
    const plant = (schema: string) =>
      `INSERT INTO ${schema}.topics (id, slug, kind, title) OVERRIDING SYSTEM VALUE VALUES (${cardId} + 1000000, 'side/planted', 'concept', 'Planted')`;
    expect(await as(() => homelab, plant('personal'))).toBe('42501');
    expect(await as(() => personal, plant('personal'))).toBe('42501');
    expect(await as(() => homelab, plant('homelab'))).toBe('42501');
    expect(
      await as(() => homelab, `INSERT INTO personal.documents (id, title, content, sha256) OVERRIDING SYSTEM VALUE VALUES (${docId} + 1000000, 'd', 'w', '${SHA('e')}')`),
    ).toBe('42501');
  });

  it('a deleted card can still be restored under its own id (its created_at comes from its history)', async () => {
    // In one transaction: delete, then put back with the old id, as history.restore does.
    const got = await brain().asRole(homelab, async (s) => {
      const [old] = await s.query<{ id: number; created_at: string }>("DELETE FROM homelab.topics WHERE slug = 'own/card' RETURNING id::int AS id, created_at::text");
      return s.query<{ same: boolean; id: number }>(
        `INSERT INTO homelab.topics (id, slug, kind, title, created_at) OVERRIDING SYSTEM VALUE VALUES ($1, 'own/card', 'concept', 'Own card', '1999-01-01')
         RETURNING id::int AS id, created_at = $2::timestamptz AS same`,
        [old!.id, old!.created_at],
      );
    });
    expect(got).toEqual([{ id: expect.any(Number), same: true }]);
  });

  it('created_at and updated_at are stamped by triggers, not taken from the writer', async () => {
    const [ins] = await rows<{ created: boolean; updated: boolean }>(
      () => homelab,
      `INSERT INTO personal.topics (slug, kind, title, created_at, updated_at) VALUES ('side/ts', 'concept', 'Generic', '1999-01-01', '2099-01-01')
       RETURNING created_at > now() - interval '1 hour' AS created, updated_at < now() + interval '1 hour' AS updated`,
    );
    expect(ins).toEqual({ created: true, updated: true });
    expect(await as(() => homelab, `UPDATE personal.topics SET created_at = '1999-01-01' WHERE id = ${cardId}`)).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.topics SET updated_at = '2099-01-01' WHERE id = ${cardId}`)).toBe('42501');
    const [own] = await rows<{ year: number }>(
      () => homelab,
      "UPDATE homelab.topics SET created_at = '1999-01-01', title = 'Own card!' WHERE slug = 'own/card' RETURNING extract(year FROM created_at)::int AS year",
    );
    expect(own!.year).toBeGreaterThan(2000);
    const [link] = await rows<{ created: boolean }>(
      () => homelab,
      `INSERT INTO personal.links (from_topic_id, to_subject, to_slug, relation, created_at) VALUES (${cardId}, 'personal', 'shared/other', 'relates-to', '1999-01-01')
       RETURNING created_at > now() - interval '1 hour' AS created`,
    );
    expect(link).toEqual({ created: true });
  });

  it('a project adds documents, tags, links, sources and raw data to personal, but cannot change or blank them', async () => {
    expect(await as(() => homelab, `UPDATE personal.documents SET content = '' WHERE id = ${docId}`)).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.topic_tags SET tag = 'renamed' WHERE topic_id = ${cardId}`)).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.sources SET quote = '' WHERE topic_id = ${cardId}`)).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.raw_data SET data = '{}' WHERE topic_id = ${cardId}`)).toBe('42501');
    expect(await as(() => homelab, `UPDATE personal.links SET context = 'changed' WHERE from_topic_id = ${cardId}`)).toBe('42501');
    expect(
      await as(
        () => homelab,
        `INSERT INTO personal.links (from_topic_id, to_subject, to_slug, context) VALUES (${cardId}, 'personal', 'shared/other', 'changed')
         ON CONFLICT (from_topic_id, to_subject, to_slug, relation) DO UPDATE SET context = EXCLUDED.context`,
      ),
    ).toBe('42501');
    expect(
      await as(
        () => homelab,
        `INSERT INTO personal.raw_data (topic_id, source, data) VALUES (${cardId}, 'crawler', '{"k": "other"}')
         ON CONFLICT (topic_id, source) DO UPDATE SET data = EXCLUDED.data, fetched_at = now()`,
      ),
    ).toBe('42501');
    // Adding is still allowed, and so is a card's amendment (which keeps a version).
    expect(await as(() => homelab, `INSERT INTO personal.topic_tags (topic_id, tag) VALUES (${cardId}, 'another')`)).toBe('ok');
    const versions = await brain().asRole(homelab, async (s) => {
      const count = async () =>
        (await s.query<{ n: number }>(`SELECT count(*)::int AS n FROM personal.versions WHERE entity = 'topic' AND entity_id = ${cardId}`))[0]!.n;
      const before = await count();
      await s.query(`UPDATE personal.topics SET body = 'amended by a project' WHERE id = ${cardId}`);
      return (await count()) - before;
    });
    expect(versions).toBe(1);
  });

  // ---------------------------------------------------------------- availability

  it('a project cannot take a lock on personal stronger than its writes need', async () => {
    const tables = await brain().admin.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'personal' ORDER BY 1");
    expect(tables.length).toBeGreaterThanOrEqual(10);
    const taken: string[] = [];
    for (const { name } of tables) {
      for (const mode of STRONG_LOCKS) {
        const got = await outcome(() => brain().asRole(homelab, (s) => s.exec(`LOCK TABLE personal.${ident(name)} IN ${mode} MODE NOWAIT`)));
        if (got !== '42501') taken.push(`${name} ${mode}: ${got}`);
      }
    }
    expect(taken).toEqual([]);
    // ROW EXCLUSIVE comes with INSERT (Postgres grants it to any writer): it blocks only DDL.
    expect(await outcome(() => brain().asRole(homelab, (s) => s.exec('LOCK TABLE personal.topics IN ROW EXCLUSIVE MODE NOWAIT')))).toBe('ok');
  });

  it('no app role can take advisory locks (the bootstrap\'s among them)', async () => {
    for (const role of [homelab, personal]) {
      expect(await outcome(() => brain().asRole(role, (s) => s.query("SELECT pg_advisory_lock(hashtext('claude-brain:bootstrap'))")))).toBe('42501');
      expect(await outcome(() => brain().asRole(role, (s) => s.query('SELECT pg_try_advisory_xact_lock(1)')))).toBe('42501');
    }
    expect(await outcome(() => brain().asRole(audit, (s) => s.exec("SET TRANSACTION READ WRITE; SELECT pg_advisory_lock(hashtext('claude-brain:bootstrap'))")))).toBe('42501');
  });

  if (target === 'postgres') {
    it('subject roles log in with lock_timeout, statement_timeout and idle_in_transaction_session_timeout set', async () => {
      for (const role of [homelab, personal, audit]) {
        const [r] = await rows<Record<string, string>>(
          () => role,
          "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS stmt, current_setting('idle_in_transaction_session_timeout') AS idle",
        );
        expect(r!.lock, role).not.toBe('0');
        expect(r!.stmt, role).not.toBe('0');
        expect(r!.idle, role).not.toBe('0');
      }
    });

    it('the bootstrap waits for its advisory lock with a message and gives up after its timeout, naming the holder', async () => {
      const url = new URL(inject('pgAdminUrl')!);
      url.pathname = `/${brain().location!.database}`;
      const holder = new pg.Client({ connectionString: url.toString(), application_name: 'lock-holder-test' });
      await holder.connect();
      try {
        await holder.query("SELECT pg_advisory_lock(hashtext('claude-brain:bootstrap'))");
        const waits: string[] = [];
        const started = Date.now();
        const run = bootstrap(brain().admin, {
          subjects: brain().config,
          kinds: KINDS,
          denyList: DENY_LIST,
          secrets: null,
          lockWaitMs: 1_500,
          onLockWait: (message) => waits.push(message),
        });
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the bootstrap hung on its lock')), 15_000));
        await expect(Promise.race([run, timeout])).rejects.toThrow(/bootstrap lock.*lock-holder-test|lock-holder-test.*bootstrap lock/s);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(waits.join('\n')).toMatch(/waiting/i);
      } finally {
        await holder.end();
      }
      // Nothing was left half-done: the next bootstrap runs as usual.
      await brain().bootstrap();
    });
  }

  // ---------------------------------------------------------------- large objects

  it('no subject role and not the audit role can create, read or grant large objects', async () => {
    const calls = [
      "SELECT lo_from_bytea(0, 'x')",
      'SELECT lo_create(0)',
      'SELECT lo_creat(-1)',
      "SELECT lo_import('/etc/hostname')",
      'SELECT lo_get(1)',
      'SELECT lo_open(1, 262144)',
      'SELECT lo_unlink(1)',
      "SELECT lo_put(1, 0, 'x')",
    ];
    const open: string[] = [];
    for (const role of [homelab, personal, audit]) {
      for (const call of calls) {
        const prefix = role === audit ? 'SET TRANSACTION READ WRITE; ' : '';
        const got = await outcome(() => brain().asRole(role, (s) => s.exec(prefix + call)));
        if (got !== '42501') open.push(`${role}: ${call} -> ${got}`);
      }
    }
    expect(open).toEqual([]);
  });

  it('the audit role writes nothing even when it turns read-only off: it holds SELECT only', async () => {
    const tries = [
      `INSERT INTO personal.topics (slug, kind, title) VALUES ('audit/x', 'concept', 'x')`,
      `UPDATE homelab.topics SET title = 'x'`,
      `DELETE FROM novel.topics`,
      `INSERT INTO brain.settings (key, value) VALUES ('x', 'y')`,
      `SELECT nextval('personal.topics_id_seq')`,
      'CREATE TEMP TABLE t (x int)',
      "SELECT lo_from_bytea(0, 'x')",
    ];
    const wrote: string[] = [];
    for (const t of tries) {
      const got = await outcome(() => brain().asRole(audit, (s) => s.exec(`SET TRANSACTION READ WRITE; SET default_transaction_read_only = off; ${t}`)));
      if (got !== '42501') wrote.push(`${t} -> ${got}`);
    }
    expect(wrote).toEqual([]);
  });

  if (target === 'postgres') {
    const psql = findPostgresBinaries() && existsSync(join(findPostgresBinaries()!, 'psql')) ? join(findPostgresBinaries()!, 'psql') : undefined;
    it.skipIf(!psql)("psql's client-side \\lo_import (the fast-path interface) is refused as well", () => {
      const loc = brain().location!;
      const r = spawnSync(psql!, ['-X', '-h', loc.host, '-p', String(loc.port), '-U', homelab, '-d', loc.database, '-c', '\\lo_import /etc/hostname'], {
        encoding: 'utf8',
        env: { ...process.env, PGPASSWORD: readFileSync(brain().secretsFile!(homelab), 'utf8').trim() },
      });
      expect(r.status, r.stdout + r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/permission denied/);
    });
  }
});
