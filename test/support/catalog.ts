// A snapshot of everything the bootstrap decides: schemas, tables, columns, functions,
// triggers, ACLs, default privileges, roles (with their password hashes), memberships,
// role settings, migrations, kinds. Two equal snapshots mean nothing changed. Every
// aggregate sorts by named columns: `ORDER BY 1` inside an aggregate sorts by a constant,
// so rows came back in catalogue order, which differs between two equal databases.
import type { SqlSession } from '../../db/sql.js';

export async function catalogSnapshot(admin: SqlSession, rolePrefix: string): Promise<unknown> {
  const [row] = await admin.query<{ snap: unknown }>(
    `WITH ours AS (
       SELECT oid, nspname FROM pg_namespace
        WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
     )
     SELECT json_build_object(
       'namespaces', (SELECT json_agg(json_build_object('n', n.nspname, 'owner', n.nspowner::regrole::text, 'acl', n.nspacl::text[]) ORDER BY n.nspname)
                        FROM pg_namespace n JOIN ours o ON o.oid = n.oid),
       'classes', (SELECT json_agg(json_build_object('n', o.nspname || '.' || c.relname, 'kind', c.relkind, 'owner', c.relowner::regrole::text, 'acl', c.relacl::text[]) ORDER BY o.nspname, c.relname)
                     FROM pg_class c JOIN ours o ON o.oid = c.relnamespace),
       'columns', (SELECT json_agg(o.nspname || '.' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) ORDER BY o.nspname, c.relname, a.attnum)
                     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ours o ON o.oid = c.relnamespace WHERE a.attnum > 0 AND NOT a.attisdropped),
       'constraints', (SELECT json_agg(o.nspname || '.' || c.conname || ':' || pg_get_constraintdef(c.oid) ORDER BY o.nspname, c.conname)
                     FROM pg_constraint c JOIN ours o ON o.oid = c.connamespace),
       'functions', (SELECT json_agg(json_build_object('f', p.oid::regprocedure::text, 'owner', p.proowner::regrole::text, 'acl', p.proacl::text[], 'definer', p.prosecdef, 'config', p.proconfig, 'src', md5(p.prosrc)) ORDER BY p.oid::regprocedure::text)
                     FROM pg_proc p JOIN ours o ON o.oid = p.pronamespace),
       'triggers', (SELECT json_agg(t.tgrelid::regclass::text || '.' || t.tgname ORDER BY t.tgrelid::regclass::text, t.tgname) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ours o ON o.oid = c.relnamespace WHERE NOT t.tgisinternal),
       'default_acl', (SELECT json_agg(json_build_object('role', d.defaclrole::regrole::text, 'ns', d.defaclnamespace::regnamespace::text, 'type', d.defaclobjtype, 'acl', d.defaclacl::text[]) ORDER BY d.defaclrole::regrole::text, d.defaclnamespace::regnamespace::text, d.defaclobjtype) FROM pg_default_acl d),
       'roles', (SELECT json_agg(json_build_object('r', rolname, 'login', rolcanlogin, 'inherit', rolinherit, 'pw', rolpassword) ORDER BY rolname) FROM pg_authid WHERE starts_with(rolname, $1)),
       'members', (SELECT json_agg(roleid::regrole::text || '>' || member::regrole::text ORDER BY roleid::regrole::text, member::regrole::text) FROM pg_auth_members WHERE starts_with(member::regrole::text, $1) OR starts_with(roleid::regrole::text, $1)),
       'role_settings', (SELECT json_agg(json_build_object('r', setrole::regrole::text, 'c', setconfig) ORDER BY setrole::regrole::text) FROM pg_db_role_setting WHERE setrole <> 0 AND starts_with(setrole::regrole::text, $1)),
       'database_acl', (SELECT datacl::text[] FROM pg_database WHERE datname = current_database()),
       'extensions', (SELECT json_agg(extname || '@' || extnamespace::regnamespace::text ORDER BY extname) FROM pg_extension),
       'migrations', (SELECT json_agg(json_build_object('s', scope, 'v', version, 'c', checksum, 'at', applied_at) ORDER BY scope, version) FROM brain.schema_migrations),
       'kinds', (SELECT json_agg(k ORDER BY k.name) FROM brain.kinds k),
       'subjects', (SELECT json_agg(s ORDER BY s.name) FROM brain.subjects s)
     ) AS snap`,
    [rolePrefix],
  );
  return row!.snap;
}
