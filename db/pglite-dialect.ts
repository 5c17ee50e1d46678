// A kysely dialect over the embedded PGlite database that runs every statement as one
// subject's role. Outside an explicit transaction each statement gets its own
// transaction with SET LOCAL ROLE; inside one, the role is set right after BEGIN.
// So no query of a subject's handle ever runs with the process's superuser rights.
//
// How it talks to PGlite: PGlite's query() makes six calls into Postgres for one statement
// (Parse, Describe, Bind, Describe, Execute, Sync) and exec() two, so a statement outside a
// transaction (BEGIN + SET LOCAL ROLE, the statement, COMMIT) cost ten, each with its own
// JavaScript and WASM overhead: under load that was a good part of the embedded brain's one
// thread. Here the same wire-protocol messages are sent together, in one call: "BEGIN; SET
// LOCAL ROLE r" as a simple query, then Parse/Bind/Describe/Execute/Sync, then COMMIT. Postgres
// runs them in order exactly as if they came one by one: if BEGIN or SET LOCAL ROLE fails, the
// transaction is aborted and the statement is refused ("current transaction is aborted"), never
// run as the superuser; if the statement fails, the COMMIT ends its transaction as a rollback.
// Parameters are serialised as PGlite's query() does, by the types Postgres infers for them;
// those are asked for (under the role, in the statement's transaction) the first time a
// statement's text is seen, and remembered. The replies are read by pglite-wire.ts, not by
// PGlite's own reader, which copied every field of every row before decoding it.
//
// Each statement text is prepared once, as a named statement of the session, and then only
// bound and executed: PGlite re-parsed, re-analysed and re-planned every statement on every
// call, and in WebAssembly that was a good part of a search (planning alone 3-6 ms of the
// keyword and vector statements at 7,500 pages). Postgres keeps such a statement's plan
// (custom plans for its first executions, then a generic one where that costs no more), and
// replans it by itself when a table or function it uses changes. Grants are checked when a
// statement executes, as the role of that transaction, never when it was prepared; the
// statements of each role are still its own.
import { parse as pgliteParse, protocol, type PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { EmbeddedDatabase } from './embedded.js';
import { exchange, readReply } from './pglite-wire.js';
import { ident } from './sql.js';
import { setLocalCommands } from './statement-settings.js';
import { isBackgroundWork, workPriority } from './work-order.js';

const { serialize } = protocol;
type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/**
 * Statement texts remembered per role (their parameter types, and their prepared statement once
 * they came twice); the least recently used is forgotten (and closed) first. A server's
 * statements are a few hundred texts; an import makes many that each run once or a few times,
 * and each prepared statement keeps its plan in PGlite's memory.
 */
export const MAX_PREPARED_STATEMENTS = 500;

/**
 * Statements with more parameters than this (a batch write's VALUES for hundreds of rows) are
 * never prepared nor remembered: each kept plan of one held about 100 KB of PGlite's memory, and
 * an import makes hundreds of such texts, each run a few times (a 30,000-page import held 45 MB of
 * cached plans in 441 statements after 25,000 pages, growing with the pages).
 */
export const PREPARE_MAX_PARAMETERS = 1_000;

/** A statement text seen in this role: the parameter types Postgres inferred, and its prepared statement, if any. */
interface Prepared {
  readonly types: number[];
  /** 'unnamed': runs as PGlite's unnamed statement; 'sent': its Parse went out in a batch that has not come back clean; 'ready': prepared. */
  state: 'unnamed' | 'sent' | 'ready';
  /** Its name in PGlite's session, from the second time the text runs. */
  name?: string;
  /** EmbeddedDatabase.generation when it was prepared: a reopened PGlite has none of them. */
  generation?: number;
}

/** Names are unique in the process: every role's statements live in PGlite's one session. */
let nextStatement = 0;

export interface PGliteRoleOptions {
  /**
   * Every transaction is opened READ ONLY (the web view's audit handle, services/view/): a
   * second wall behind the role's grants, since PGlite applies no role settings under SET
   * LOCAL ROLE, so the audit role's default_transaction_read_only does not reach here.
   */
  readOnly?: boolean;
  /** Statements kept prepared for the role (default MAX_PREPARED_STATEMENTS); the least recently used is closed first. */
  maxPrepared?: number;
}

/**
 * Given a promise of the database (`brain up` listens before PGlite has opened and the
 * bootstrap has checked the schema and grants), the first statement waits for it.
 */
export class PGliteRoleDialect implements Dialect {
  constructor(
    private readonly embedded: EmbeddedDatabase | Promise<EmbeddedDatabase>,
    private readonly role: string,
    private readonly options: PGliteRoleOptions = {},
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteRoleDriver(this.embedded, this.role, this.options.readOnly === true, this.options.maxPrepared ?? MAX_PREPARED_STATEMENTS);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteRoleDriver implements Driver {
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  /** This role's prepared statements, by text (least recently used first). */
  readonly prepared = new Map<string, Prepared>();
  private embedded: EmbeddedDatabase | undefined;

  constructor(
    private readonly opening: EmbeddedDatabase | Promise<EmbeddedDatabase>,
    private readonly role: string,
    private readonly readOnly: boolean,
    private readonly maxPrepared: number,
  ) {}

  /** Kysely calls this once, before the first connection is acquired. */
  async init(): Promise<void> {
    this.embedded = await this.opening;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const embedded = this.embedded!;
    const release = await embedded.acquire(workPriority(), isBackgroundWork());
    const connection = new PGliteRoleConnection(embedded, this.role, this.prepared, this.readOnly, this.maxPrepared);
    this.releases.set(connection, release);
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as PGliteRoleConnection).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteRoleConnection).end('COMMIT');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteRoleConnection).end('ROLLBACK');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.releases.get(connection);
    this.releases.delete(connection);
    release?.();
  }

  async destroy(): Promise<void> {}
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

class PGliteRoleConnection implements DatabaseConnection {
  /**
   * 'none': no explicit transaction, each statement is its own. 'pending': kysely began one;
   * its BEGIN and SET LOCAL ROLE go out with its first statement. 'open': they have been sent.
   */
  private transaction: 'none' | 'pending' | 'open' = 'none';
  private opening = '';

  constructor(
    private readonly embedded: EmbeddedDatabase,
    private readonly role: string,
    private readonly prepared: Map<string, Prepared>,
    private readonly readOnly: boolean,
    private readonly maxPrepared: number,
  ) {}

  private setRole(prefix: string): string {
    return `${prefix}; SET LOCAL ROLE ${ident(this.role)}`;
  }

  begin(settings: TransactionSettings): void {
    const level = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : '';
    const mode = this.readOnly ? ' READ ONLY' : settings.accessMode ? ` ${settings.accessMode.toUpperCase()}` : '';
    this.opening = this.setRole(`BEGIN${level}${mode}`);
    this.transaction = 'pending';
  }

  async end(command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const sent = this.transaction === 'open';
    this.transaction = 'none';
    // A transaction with no statement never reached Postgres: nothing to end.
    if (sent) await this.send([serialize.query(command)], true);
  }

  /** Sends messages in one call; the first database error is thrown after Postgres has read them all. */
  private async send(messages: readonly Uint8Array[], syncToFs: boolean): Promise<BackendMessage[]> {
    const pg = this.embedded.pg;
    const message = concat(messages);
    const reply = readReply(await pg.runExclusive(() => exchange(pg, message, syncToFs)));
    if (reply.error) throw reply.error;
    // The shapes PGlite's parseResults and parseDescribeStatementResults read (pglite-wire.ts).
    return reply.messages as unknown as BackendMessage[];
  }

  /** Forgets the least recently used statement, returning it (its Close goes out with the next batch). */
  private oldest(): Prepared | undefined {
    const first = this.prepared.entries().next();
    if (first.done) return undefined;
    this.prepared.delete(first.value[0]);
    return first.value[1];
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const pg = this.embedded.pg;
    const own = this.transaction === 'none';
    // Settings the statement carries (db/statement-settings.ts) go out as SET LOCAL after the role,
    // in the same simple query: in its own transaction they hold for this statement only.
    const local = setLocalCommands(compiled.sql);
    const after = (commands: string) => (local === '' ? commands : `${commands}; ${local}`);
    const head: Uint8Array[] = [];
    if (own) head.push(serialize.query(after(this.setRole(this.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'))));
    else if (this.transaction === 'pending') {
      head.push(serialize.query(after(this.opening)));
      this.transaction = 'open';
    } else if (local !== '') head.push(serialize.query(local));
    const params = compiled.parameters as readonly unknown[];
    try {
      const generation = this.embedded.generation;
      const big = params.length > PREPARE_MAX_PARAMETERS;
      let prepared = big ? undefined : this.prepared.get(compiled.sql);
      const statement: Uint8Array[] = [];
      if (prepared === undefined) {
        // First time: Postgres says what types it infers, in the same transaction, as the role,
        // and the statement runs unnamed. One that fails to parse is not remembered.
        // A statement that will not be remembered makes no room: it would evict a prepared one for nothing.
        const forgotten = !big && this.prepared.size >= this.maxPrepared ? this.oldest() : undefined;
        const close = forgotten?.name !== undefined && forgotten.generation === generation ? [serialize.close({ type: 'S', name: forgotten.name })] : [];
        const described = await this.send([...close, ...head, serialize.parse({ text: compiled.sql }), serialize.describe({ type: 'S' }), serialize.sync()], false);
        head.length = 0;
        prepared = { types: pgliteParse.parseDescribeStatementResults(described), state: 'unnamed' };
        if (!big) this.prepared.set(compiled.sql, prepared);
      } else {
        // Most recently used last: the first one is the one to forget when the role has too many.
        this.prepared.delete(compiled.sql);
        this.prepared.set(compiled.sql, prepared);
        if (prepared.generation !== generation) prepared.state = 'unnamed'; // PGlite reopened since
        if (prepared.state !== 'ready') {
          // Again: prepared under its name in this batch, only bound from then on. A batch that
          // failed after such a Parse may or may not have kept it: closed first, then parsed again.
          if (prepared.state === 'sent') statement.push(serialize.close({ type: 'S', name: prepared.name! }));
          prepared.name ??= `brain_stmt_${++nextStatement}`;
          prepared.generation = generation;
          prepared.state = 'sent';
          statement.push(serialize.parse({ name: prepared.name, text: compiled.sql }));
        }
      }
      const types = prepared.types;
      const values = params.map((param, i): string | Uint8Array | null => {
        if (param === null || param === undefined) return null;
        // A Uint8Array goes as it is, in binary: bytea (PGlite's serializer writes hex one byte
        // at a time, seconds for the 22 MB of original pages of a 7,500-page import) and a vector
        // in pgvector's binary form (services/search/vectors.ts, vectorParam).
        if (param instanceof Uint8Array) return param;
        const serializer = pg.serializers[types[i]!];
        return serializer ? (serializer(param) as string) : String(param);
      });
      const named = prepared.state === 'unnamed' ? undefined : prepared.name;
      statement.push(serialize.bind({ ...(named ? { statement: named } : {}), values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync());
      const messages = await this.send([...head, ...statement, ...(own ? [serialize.query('COMMIT')] : [])], own);
      if (prepared.state === 'sent') prepared.state = 'ready';
      // The statement's own messages: from its BindComplete to the ReadyForQuery after it.
      const from = messages.findIndex((m) => m.name === 'bindComplete');
      const to = messages.findIndex((m, i) => i > from && m.name === 'readyForQuery');
      const [result] = pgliteParse.parseResults(messages.slice(from, to), pg.parsers);
      return {
        rows: (result?.rows ?? []) as R[],
        ...(result?.affectedRows !== undefined && compiled.query.kind !== 'SelectQueryNode' ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
      };
    } catch (error) {
      // Our own transaction must not outlive the statement (after a failed batch its COMMIT
      // already ended it as a rollback; ROLLBACK then only warns).
      if (own) await this.send([serialize.query('ROLLBACK')], true).catch(() => undefined);
      throw error;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the embedded brain');
  }
}
