// The isolation matrix: every subject role (and the audit role) x every subject schema x
// every operation, executed for real, must give exactly the designed outcome: allowed, or
// refused by Postgres with 42501. On the server each role logs in with its own password;
// on PGlite each statement runs under SET LOCAL ROLE.
import { beforeAll, expect, it } from 'vitest';
import { ident } from '../db/sql.js';
import type { BrainUnderTest } from './support/brains.js';
import { describeOnBothDatabases, outcome } from './support/both-databases.js';
import { DATABASE_KEPT_COLUMNS, designed, designedTablePrivileges, OPS, PROJECT_UPDATE_COLUMNS, type Op } from './support/design.js';

function statement(op: Op, schema: string): string {
  const t = `${ident(schema)}.topics`;
  switch (op) {
    case 'SELECT':
      return `SELECT count(*) FROM ${t}`;
    case 'INSERT':
      return `INSERT INTO ${t} (slug, kind, title) VALUES ('matrix/probe', 'concept', 'Probe')`;
    case 'UPDATE':
      return `UPDATE ${t} SET summary = 'changed' WHERE slug = 'seed/one'`;
    case 'DELETE':
      return `DELETE FROM ${t} WHERE slug = 'seed/one'`;
    case 'TRUNCATE':
      return `TRUNCATE ${t} CASCADE`;
    case 'CREATE':
      return `CREATE TABLE ${ident(schema)}.intruder (x int)`;
    case 'ALTER':
      return `ALTER TABLE ${t} ADD COLUMN intruder int`;
    case 'DROP':
      return `DROP TABLE ${t} CASCADE`;
  }
}

async function seed(brain: BrainUnderTest): Promise<void> {
  for (const s of brain.config.subjects) {
    await brain.admin.query(`INSERT INTO ${ident(s.name)}.topics (slug, kind, title, body) VALUES ('seed/one', 'concept', $1, $2)`, [
      `Seed of ${s.name}`,
      `secret-${s.name}-content`,
    ]);
  }
}

describeOnBothDatabases('isolation matrix', (brain) => {
  beforeAll(async () => {
    await seed(brain());
  });

  it('gives every role x schema x operation exactly the designed outcome', async () => {
    const cfg = brain().config;
    const roles = [...cfg.subjects.map((s) => s.role), cfg.auditRole];
    const mismatches: string[] = [];
    let probes = 0;
    for (const role of roles) {
      for (const { name: schema } of cfg.subjects) {
        const allowed = designed(cfg, role, schema);
        for (const op of OPS) {
          // The audit role is read-only by default; READ WRITE makes the grants the thing tested.
          const prefix = role === cfg.auditRole ? 'SET TRANSACTION READ WRITE; ' : '';
          const got = await outcome(() => brain().asRole(role, (s) => s.exec(prefix + statement(op, schema))));
          const want = allowed.has(op) ? 'ok' : '42501';
          probes++;
          if (got !== want) mismatches.push(`${role} ${op} on ${schema}: expected ${want}, got ${got}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(probes).toBe(roles.length * cfg.subjects.length * OPS.length);
  });

  it('leaves every row where it was (each probe ran in a rolled-back transaction)', async () => {
    for (const s of brain().config.subjects) {
      const rows = await brain().admin.query<{ slug: string }>(`SELECT slug FROM ${ident(s.name)}.topics ORDER BY slug`);
      expect(rows.map((r) => r.slug)).toEqual(['seed/one']);
    }
  });

  it('grants on every table, sequence and schema match the design (catalog check)', async () => {
    const cfg = brain().config;
    const admin = brain().admin;
    const tables = await admin.query<{ schema: string; name: string }>(
      'SELECT schemaname AS schema, tablename AS name FROM pg_tables WHERE schemaname = ANY($1) ORDER BY 1, 2',
      [cfg.subjects.map((s) => s.name)],
    );
    expect(tables.length).toBeGreaterThanOrEqual(cfg.subjects.length * 8);
    const privileges = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];
    const mismatches: string[] = [];
    for (const role of [...cfg.subjects.map((s) => s.role), cfg.auditRole]) {
      for (const t of tables) {
        const allowed = designedTablePrivileges(cfg, role, t.schema, t.name);
        for (const p of privileges) {
          const [row] = await admin.query<{ has: boolean }>('SELECT has_table_privilege($1, $2, $3) AS has', [role, `${ident(t.schema)}.${ident(t.name)}`, p]);
          const want = allowed.has(p);
          if (row!.has !== want) mismatches.push(`${role} ${p} on ${t.schema}.${t.name}: expected ${want}`);
        }
      }
      for (const s of cfg.subjects) {
        const [row] = await admin.query<{ usage: boolean; create: boolean }>(
          "SELECT has_schema_privilege($1, $2, 'USAGE') AS usage, has_schema_privilege($1, $2, 'CREATE') AS create",
          [role, s.name],
        );
        if (row!.usage !== designed(cfg, role, s.name).has('SELECT')) mismatches.push(`${role} USAGE on schema ${s.name}`);
        if (row!.create) mismatches.push(`${role} CREATE on schema ${s.name}`);
      }
      const [g] = await admin.query<Record<string, boolean>>(
        `SELECT has_schema_privilege($1, 'public', 'CREATE') AS public_create,
                has_schema_privilege($1, 'public', 'USAGE') AS public_usage,
                has_schema_privilege($1, 'brain_private', 'USAGE') AS private_usage,
                has_schema_privilege($1, 'brain', 'CREATE') AS brain_create,
                has_schema_privilege($1, 'brain_ext', 'CREATE') AS ext_create,
                has_database_privilege($1, current_database(), 'CREATE') AS db_create,
                has_database_privilege($1, current_database(), 'TEMP') AS db_temp,
                NOT has_database_privilege($1, current_database(), 'CONNECT') AS no_connect`,
        [role],
      );
      for (const [k, v] of Object.entries(g!)) if (v) mismatches.push(`${role}: ${k}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('a project updates personal by column only: the card columns the writer owns, and nothing else', async () => {
    const cfg = brain().config;
    const columns = await brain().admin.query<{ table: string; column: string }>(
      `SELECT c.relname AS table, a.attname AS column FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relnamespace = 'personal'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2`,
    );
    const mismatches: string[] = [];
    for (const project of cfg.subjects.filter((s) => !s.isPersonal)) {
      for (const { table, column } of columns) {
        const designedCols = PROJECT_UPDATE_COLUMNS[table];
        const want = designedCols === undefined ? false : designedCols === null ? !DATABASE_KEPT_COLUMNS.includes(column) : designedCols.includes(column);
        const [row] = await brain().admin.query<{ has: boolean }>("SELECT has_column_privilege($1, $2, $3, 'UPDATE') AS has", [project.role, `personal.${ident(table)}`, column]);
        if (row!.has !== want) mismatches.push(`${project.name} UPDATE (${column}) on personal.${table}: expected ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('app roles own nothing, belong to no role, and carry no dangerous attributes', async () => {
    const cfg = brain().config;
    const appRoles = [...cfg.subjects.map((s) => s.role), cfg.auditRole];
    const owned = await brain().admin.query(
      `SELECT 'class' AS what, relname AS name FROM pg_class WHERE relowner::regrole::text = ANY($1)
       UNION ALL SELECT 'schema', nspname FROM pg_namespace WHERE nspowner::regrole::text = ANY($1)
       UNION ALL SELECT 'function', proname FROM pg_proc WHERE proowner::regrole::text = ANY($1)
       UNION ALL SELECT 'type', typname FROM pg_type WHERE typowner::regrole::text = ANY($1)`,
      [appRoles.map((r) => ident(r)).concat(appRoles)],
    );
    expect(owned).toEqual([]);
    const members = await brain().admin.query(
      'SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = ANY($1)',
      [appRoles],
    );
    expect(members).toEqual([]);
    const attrs = await brain().admin.query<{ rolname: string }>(
      'SELECT rolname FROM pg_roles WHERE rolname = ANY($1) AND (rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls OR rolinherit)',
      [[...appRoles, cfg.ownerRole]],
    );
    expect(attrs).toEqual([]);
    const schemas = await brain().admin.query<{ nspname: string; owner: string }>(
      "SELECT nspname, nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = ANY($1)",
      [[...cfg.subjects.map((s) => s.name), 'brain', 'brain_ext', 'brain_private']],
    );
    expect(schemas.every((s) => s.owner.replace(/"/g, '') === cfg.ownerRole)).toBe(true);
  });
});
