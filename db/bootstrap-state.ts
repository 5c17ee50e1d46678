// Starting the embedded brain without re-running the bootstrap when it would change nothing.
// The bootstrap (db/bootstrap.ts) is idempotent but not cheap: it checks every role, schema
// and migration and re-applies every grant, 2-4 s of a 2-core machine's start. So the
// embedded brain records, after each bootstrap, two digests beside its data:
//  - of what the bootstrap was asked to do: the migration files, the grant templates, the
//    subjects, kinds and deny-list, and the bootstrap's own code;
//  - of what it decided in the database: roles and their attributes, memberships and
//    settings, schemas, every ACL (schemas, tables, columns, functions, default privileges,
//    the database), extensions, applied migrations, kinds, subjects, settings and the
//    deny-list's rows, and the server version and extensions available.
// A start whose inputs and catalog both still match skips the bootstrap: the database is
// exactly as a bootstrap would leave it, so no grant is stale and no migration missing. Any
// difference (a new migration, an edited subjects.yaml, a grant added by hand) runs the whole
// bootstrap, which puts it right. `brain init` always runs it.
//
// The catalog digest is one query, but over catalogs a cold Postgres in WebAssembly has not
// read yet: 0.2-0.6 s of every start on a 2-core machine. So a clean close takes it again and,
// when it still matches, records global/pg_control as the close left it (`closed`). Postgres
// rewrites pg_control whenever it starts and whenever it stops; while the file is unchanged,
// nothing has opened the data directory since that close, so the catalog is still the one
// recorded and the next start skips the query too. Any open (this brain after a crash, another
// program, another version) changes the file, and the start after it queries the catalog again.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { writeFileAtomically } from './data-dir.js';
import { loadMigrations } from './migrate.js';
import type { SqlSession } from './sql.js';
import type { BootstrapOptions } from './bootstrap.js';

/** In the data directory, beside the marker; Postgres ignores files it does not know there. */
export const BOOTSTRAP_STATE_FILE = 'claude-brain-bootstrap.json';

export interface BootstrapState {
  /** sha256 of the bootstrap's inputs and code. */
  inputs: string;
  /** sha256 of the catalog state it decides. */
  catalog: string;
  /** The last clean close found the catalog still `catalog` (see the top of the file). */
  closed?: ClosedAsRecorded;
}

export interface ClosedAsRecorded {
  /** sha256 of global/pg_control just after that close. */
  pgControl: string;
  /** The PGlite build it ran on (the catalog digest also holds the server's version and extensions). */
  engine: string;
}

/** The modules whose code decides what the bootstrap does. */
const CODE_MODULES = ['bootstrap', 'migrate', 'sync-deny-list', 'bootstrap-state'] as const;

/**
 * Compiled into the bundle by scripts/bundle.mjs (its bootstrapCodeDigest): the digest of the
 * compiled modules it was built from, which the bundle holds as no files of their own.
 */
declare const __BOOTSTRAP_CODE_DIGEST__: string | undefined;

/** A digest of the bootstrap's code: its module files beside this one (.js in dist/, .ts in tests), else the bundle's. */
export function bootstrapCodeDigest(): string {
  if (typeof __BOOTSTRAP_CODE_DIGEST__ === 'string') return __BOOTSTRAP_CODE_DIGEST__;
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const h = createHash('sha256');
  for (const m of CODE_MODULES) {
    const file = fileURLToPath(new URL(`./${m}${ext}`, import.meta.url));
    h.update(`${m}\0${existsSync(file) ? readFileSync(file, 'utf8') : 'missing'}\0`);
  }
  return h.digest('hex');
}

export function bootstrapInputs(opts: BootstrapOptions & { migrationsDir: string; grantsDir: string }): string {
  const h = createHash('sha256');
  const add = (label: string, value: string) => h.update(`${label}\0${value}\0`);
  for (const track of ['global', 'subject'] as const) {
    for (const m of loadMigrations(opts.migrationsDir, track)) add(`migration ${m.file}`, m.checksum);
  }
  for (const f of readdirSync(opts.grantsDir).filter((f) => f.endsWith('.sql')).sort()) add(`grants ${f}`, readFileSync(join(opts.grantsDir, f), 'utf8'));
  add('code', bootstrapCodeDigest());
  add('subjects', JSON.stringify(opts.subjects));
  add('kinds', JSON.stringify(opts.kinds));
  add('deny-list', JSON.stringify(opts.denyList));
  add('login roles', String(opts.secrets !== null));
  return h.digest('hex');
}

/** One query over what the bootstrap decides; a digest of its rows. Embedded brain, as the superuser. */
export async function catalogDigest(session: SqlSession, rolePrefix: string): Promise<string> {
  const [row] = await session.query<{ state: string }>(
    `WITH ours AS (
       SELECT oid, nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
     ), roles AS (
       SELECT oid, rolname FROM pg_roles WHERE starts_with(rolname, $1)
     )
     SELECT concat_ws(E'\\n',
       version(),
       (SELECT string_agg(name || '@' || coalesce(default_version, ''), ',' ORDER BY name) FROM pg_available_extensions),
       (SELECT string_agg(concat_ws(':', r.rolname, a.rolsuper, a.rolinherit, a.rolcreaterole, a.rolcreatedb, a.rolcanlogin, a.rolreplication, a.rolbypassrls, a.rolpassword), ',' ORDER BY r.rolname)
          FROM roles r JOIN pg_authid a ON a.oid = r.oid),
       (SELECT string_agg(m.roleid::regrole::text || '>' || m.member::regrole::text, ',' ORDER BY m.roleid::regrole::text || '>' || m.member::regrole::text) FROM pg_auth_members m
         WHERE m.member IN (SELECT oid FROM roles) OR m.roleid IN (SELECT oid FROM roles)),
       (SELECT string_agg(s.setrole::regrole::text || '=' || s.setdatabase || ':' || array_to_string(s.setconfig, ';'), ',' ORDER BY s.setrole::regrole::text || '=' || s.setdatabase || ':' || array_to_string(s.setconfig, ';'))
          FROM pg_db_role_setting s WHERE s.setrole IN (SELECT oid FROM roles)),
       (SELECT string_agg(concat_ws(':', n.nspname, n.nspowner::regrole::text, n.nspacl::text), ',' ORDER BY n.nspname) FROM pg_namespace n JOIN ours o ON o.oid = n.oid),
       (SELECT string_agg(concat_ws(':', o.nspname, c.relname, c.relkind, c.relowner::regrole::text, c.relacl::text, c.relrowsecurity), ',' ORDER BY o.nspname, c.relname)
          FROM pg_class c JOIN ours o ON o.oid = c.relnamespace),
       (SELECT string_agg(concat_ws(':', c.oid::regclass::text, a.attname, a.attacl::text), ',' ORDER BY concat_ws(':', c.oid::regclass::text, a.attname, a.attacl::text))
          FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ours o ON o.oid = c.relnamespace WHERE a.attacl IS NOT NULL),
       (SELECT string_agg(concat_ws(':', p.oid::regprocedure::text, p.proowner::regrole::text, p.proacl::text, p.prosecdef, array_to_string(p.proconfig, ';')), ',' ORDER BY concat_ws(':', p.oid::regprocedure::text, p.proowner::regrole::text, p.proacl::text, p.prosecdef, array_to_string(p.proconfig, ';')))
          FROM pg_proc p JOIN ours o ON o.oid = p.pronamespace),
       (SELECT string_agg(concat_ws(':', d.defaclrole::regrole::text, d.defaclnamespace, d.defaclobjtype, d.defaclacl::text), ',' ORDER BY concat_ws(':', d.defaclrole::regrole::text, d.defaclnamespace, d.defaclobjtype, d.defaclacl::text)) FROM pg_default_acl d),
       (SELECT datacl::text FROM pg_database WHERE datname = current_database()),
       (SELECT string_agg(extname || '@' || extnamespace::regnamespace::text || '@' || extversion, ',' ORDER BY extname) FROM pg_extension),
       (SELECT string_agg(concat_ws(':', scope, version, checksum), ',' ORDER BY scope, version) FROM brain.schema_migrations),
       (SELECT string_agg(concat_ws(':', name, class, description), ',' ORDER BY name) FROM brain.kinds),
       (SELECT string_agg(concat_ws(':', name, role, is_personal), ',' ORDER BY name) FROM brain.subjects),
       (SELECT string_agg(concat_ws(':', key, value), ',' ORDER BY key) FROM brain.settings),
       (SELECT string_agg(concat_ws(':', id, category, label, pattern, check_fn), E'\\x1f' ORDER BY id) FROM brain_private.deny_rules),
       (SELECT string_agg(pattern, ',' ORDER BY pattern) FROM brain_private.deny_allow)
     ) AS state`,
    [rolePrefix],
  );
  return createHash('sha256').update(row?.state ?? '').digest('hex');
}

export function readBootstrapState(dataDir: string): BootstrapState | undefined {
  try {
    const s = JSON.parse(readFileSync(join(dataDir, BOOTSTRAP_STATE_FILE), 'utf8')) as Partial<BootstrapState>;
    if (typeof s.inputs !== 'string' || typeof s.catalog !== 'string') return undefined;
    const closed = typeof s.closed?.pgControl === 'string' && typeof s.closed.engine === 'string' ? { pgControl: s.closed.pgControl, engine: s.closed.engine } : undefined;
    return { inputs: s.inputs, catalog: s.catalog, ...(closed ? { closed } : {}) };
  } catch {
    return undefined; // absent or unreadable: the bootstrap runs
  }
}

export function writeBootstrapState(dataDir: string, state: BootstrapState): void {
  writeFileAtomically(join(dataDir, BOOTSTRAP_STATE_FILE), `${JSON.stringify({ ...state, at: new Date().toISOString() })}\n`);
}

function pgControlDigest(dataDir: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(join(dataDir, 'global', 'pg_control'))).digest('hex');
  } catch {
    return undefined;
  }
}

let engine: string | undefined;
/** The PGlite and pgvector packages' versions: what decides the server version and the extensions available. */
function engineVersion(): string {
  if (engine !== undefined) return engine;
  const require = createRequire(import.meta.url);
  engine = ['@electric-sql/pglite', '@electric-sql/pglite-pgvector']
    .map((name) => {
      try {
        // dist/index.cjs in the package: its package.json is two folders up.
        const pkg = join(require.resolve(name), '..', '..', 'package.json');
        return `${name}@${(JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version ?? '?'}`;
      } catch {
        return `${name}@?`;
      }
    })
    .join(' ');
  return engine;
}

/**
 * Before PGlite opens the data directory (which rewrites pg_control): the catalog digest
 * the last clean close confirmed, when nothing has opened the directory since; else undefined.
 */
export function catalogAsClosed(dataDir: string, state = readBootstrapState(dataDir)): string | undefined {
  if (!state?.closed) return undefined;
  return state.closed.pgControl === pgControlDigest(dataDir) && state.closed.engine === engineVersion() ? state.catalog : undefined;
}

/**
 * After a clean close: records that the catalog was still the bootstrap's (`catalog`, taken
 * just before the close), with pg_control as the close left it; anything else clears the record.
 */
export function recordClose(dataDir: string, catalog: string | undefined): void {
  const state = readBootstrapState(dataDir);
  if (!state) return;
  const pgControl = catalog !== undefined && catalog === state.catalog ? pgControlDigest(dataDir) : undefined;
  const { closed: _previous, ...rest } = state;
  if (pgControl) writeBootstrapState(dataDir, { ...rest, closed: { pgControl, engine: engineVersion() } });
  else if (state.closed) writeBootstrapState(dataDir, rest);
}
