// Numbered SQL migrations, applied in order, each in a transaction that records itself.
// Two tracks: migrations/global (once per database) and migrations/subject (once per
// subject schema, with search_path set to that schema, so every subject, existing or
// added later, gets exactly the same tables).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ident, inTransaction, sqlState, type SqlSession } from './sql.js';

export interface Migration {
  readonly track: 'global' | 'subject';
  readonly version: number;
  readonly name: string;
  readonly file: string;
  readonly sql: string;
  readonly checksum: string;
  /** Optional features the migration needs (`-- requires: vector`); skipped, not failed, when absent. */
  readonly requires: readonly string[];
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function loadMigrations(dir: string, track: Migration['track']): Migration[] {
  const folder = join(dir, track);
  const list = readdirSync(folder)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => {
      const m = FILE.exec(f);
      if (!m) throw new Error(`${join(folder, f)}: migration files are named NNNN_snake_case.sql`);
      const sql = readFileSync(join(folder, f), 'utf8');
      const requires = [...sql.matchAll(/^--\s*requires:\s*([a-z_, ]+)$/gm)].flatMap((r) => r[1]!.split(/[ ,]+/).filter(Boolean));
      return {
        track,
        version: Number(m[1]),
        name: m[2]!,
        file: `migrations/${track}/${f}`,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        requires,
      } satisfies Migration;
    })
    .sort((a, b) => a.version - b.version);
  list.forEach((m, i) => {
    if (i > 0 && list[i - 1]!.version === m.version) throw new Error(`${m.file}: version ${m.version} is used twice in ${folder}`);
  });
  return list;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    message: string,
    readonly file: string,
    readonly sqlState: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS brain.schema_migrations (
  scope      text NOT NULL,
  version    integer NOT NULL,
  name       text NOT NULL,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, version)
)`;

export interface ApplyOptions {
  ownerRole: string;
  /** 'global' or the subject's name. */
  scope: string;
  /** The schema migrations of this scope create their objects in. */
  schema: string;
  features: ReadonlySet<string>;
}

export interface ApplyResult {
  applied: string[];
  skipped: string[];
}

/** Applies the migrations of one scope that are not yet recorded. The caller holds the advisory lock. */
export async function applyMigrations(session: SqlSession, migrations: readonly Migration[], opts: ApplyOptions): Promise<ApplyResult> {
  const done = new Map(
    (await session.query<{ version: number; checksum: string }>('SELECT version, checksum FROM brain.schema_migrations WHERE scope = $1', [opts.scope])).map((r) => [
      r.version,
      r.checksum,
    ]),
  );
  const result: ApplyResult = { applied: [], skipped: [] };
  for (const m of migrations) {
    const recorded = done.get(m.version);
    if (recorded !== undefined) {
      if (recorded !== m.checksum) {
        throw new MigrationError(
          `${m.file} was changed after it was applied to "${opts.scope}"; applied migrations are immutable, add a new numbered file instead`,
          m.file,
          undefined,
        );
      }
      continue;
    }
    const missing = m.requires.filter((f) => !opts.features.has(f));
    if (missing.length > 0) {
      result.skipped.push(`${m.file} (needs ${missing.join(', ')})`);
      continue;
    }
    try {
      await inTransaction(session, async () => {
        await session.exec(`SET LOCAL ROLE ${ident(opts.ownerRole)}; SET LOCAL search_path = ${ident(opts.schema)}`);
        await session.exec(m.sql);
        await session.query('INSERT INTO brain.schema_migrations (scope, version, name, checksum) VALUES ($1, $2, $3, $4)', [
          opts.scope,
          m.version,
          m.name,
          m.checksum,
        ]);
      });
    } catch (cause) {
      const state = sqlState(cause);
      throw new MigrationError(
        `${m.file} failed on "${opts.scope}" and was rolled back: ${(cause as Error).message}${state ? ` (SQLSTATE ${state})` : ''}`,
        m.file,
        state,
        { cause },
      );
    }
    result.applied.push(m.file);
  }
  return result;
}
