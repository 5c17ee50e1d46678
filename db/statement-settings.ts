// Settings one statement needs for itself (the vector search's index scan: hnsw.ef_search,
// hnsw.iterative_scan, enable_seqscan), carried by the statement to the embedded dialect.
//
// Set in a transaction of their own (BEGIN, set_config, the statement, COMMIT), they cost the
// embedded brain three exchanges with PGlite where a statement alone costs one: 0.5-0.7 ms of a
// vector search's 10-11 at 7,500 pages (docs/performance.md, "The relevance evidence without
// per-card function calls"). So the statement carries them in a leading comment, and the
// embedded dialect (db/pglite-dialect.ts) sends them as SET LOCAL after BEGIN and SET LOCAL
// ROLE, in the statement's own batch: they hold for that statement only. Handles that cannot do
// this (a server's pool, the link to a running brain) are not marked, and rowsWithSettings sets
// the settings in a transaction around the statement instead.
//
// Only names on ALLOWED, with plain word values, ever reach SQL: the comment is written by this
// code, never from input, and the dialect refuses any other name (a role or a search path cannot
// be set this way).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { KnowledgeDatabase } from './database.js';

/**
 * The settings a statement may carry, or setLocally set: planner and index-scan knobs, nothing
 * about who runs it. enable_bitmapscan is lint's (its pair search, services/curation/lint-hooks.ts).
 */
const ALLOWED: ReadonlySet<string> = new Set(['hnsw.ef_search', 'hnsw.iterative_scan', 'enable_seqscan', 'enable_bitmapscan']);
const VALUE = /^[A-Za-z0-9_]{1,40}$/;
const PREFIX = '/*brain:set ';
const MARKER = /^\/\*brain:set ([^*]*)\*\//;

export type StatementSettings = Readonly<Record<string, string>>;

function checked(name: string, value: string): void {
  if (!ALLOWED.has(name)) throw new Error(`statement setting ${JSON.stringify(name)} is not allowed (allowed: ${[...ALLOWED].join(', ')})`);
  if (!VALUE.test(value)) throw new Error(`statement setting ${name} has a value that is not a plain word: ${JSON.stringify(value)}`);
}

/** `statement` carrying `settings` (see above); run it only on a handle that carriesSettings. */
export function withStatementSettings<T>(settings: StatementSettings, statement: RawBuilder<T>): RawBuilder<T> {
  const pairs = Object.entries(settings);
  for (const [name, value] of pairs) checked(name, value);
  return sql<T>`${sql.raw(`${PREFIX}${pairs.map(([n, v]) => `${n}=${v}`).join(',')}*/ `)}${statement}`;
}

/**
 * The SET LOCAL commands for the settings a statement's text carries, '' for none. Throws for a
 * marker naming anything not allowed, so a statement never runs without settings it asked for.
 */
export function setLocalCommands(text: string): string {
  if (!text.startsWith(PREFIX)) return '';
  const m = MARKER.exec(text);
  if (!m) throw new Error('statement settings are not closed (expected /*brain:set name=value,...*/)');
  return m[1]!
    .split(',')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) throw new Error(`statement setting ${JSON.stringify(pair)} has no value (expected name=value)`);
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      checked(name, value);
      return `SET LOCAL ${name} = '${value}'`;
    })
    .join('; ');
}

/** Database handles whose dialect sends a statement's settings with it (db/subject-db.ts marks them). */
const capable = new WeakSet<object>();

export function markCarriesSettings(db: object): void {
  capable.add(db);
}

/** Whether `db` applies the settings a statement carries; otherwise set them in a transaction. */
export function carriesSettings(db: object): boolean {
  return capable.has(db);
}

/** Sets `settings` until the end of the transaction `trx` (set_config(..., true)). */
export async function setLocally(trx: Transaction<KnowledgeDatabase>, settings: StatementSettings): Promise<void> {
  const pairs = Object.entries(settings);
  for (const [name, value] of pairs) checked(name, value);
  await sql`SELECT ${sql.join(pairs.map(([name, value]) => sql`set_config(${name}, ${value}, true)`))}`.execute(trx);
}

/**
 * `statement`'s rows, run with `settings` for it alone: carried with it where the handle's dialect
 * sends them in the statement's own batch (the embedded brain), else set in a transaction around it.
 */
export async function rowsWithSettings<R>(db: Kysely<KnowledgeDatabase>, settings: StatementSettings, statement: RawBuilder<R>): Promise<R[]> {
  if (carriesSettings(db)) return (await withStatementSettings(settings, statement).execute(db)).rows;
  return db.transaction().execute(async (trx) => {
    await setLocally(trx, settings);
    return (await statement.execute(trx)).rows;
  });
}
