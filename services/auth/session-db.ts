// The database handle of one OAuth session: the subject's own handle (its role, its grants),
// with every statement run inside a transaction that our code begins, so that:
//  - a brain:read session's transactions are begun READ ONLY (START TRANSACTION READ ONLY on
//    the server, BEGIN READ ONLY in PGlite's dialect) before any statement: Postgres itself
//    refuses any write (SQLSTATE 25006), whatever a tool does, and a tool cannot turn it
//    back (SET TRANSACTION READ WRITE after a query is refused by Postgres, and tools send no
//    caller-supplied SQL);
//  - the client's name is set (brain.client) first in every transaction, where the outbox's
//    trigger reads it (migrations/global/0011_remote_client.sql), so every write a remote
//    client makes is recorded with its name.
// A lone statement (outside a transaction) becomes a transaction of its own. Built on the
// inner Kysely's public API (startTransaction), so it works over both dialects unchanged.
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type ControlledTransaction,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { KnowledgeDatabase } from '../../db/database.js';

export interface SessionDbOptions {
  readOnly: boolean;
  /** The OAuth client's registered name, recorded in the outbox with each write. */
  client: string;
}

type Inner = Kysely<KnowledgeDatabase>;

class SessionConnection implements DatabaseConnection {
  trx: ControlledTransaction<KnowledgeDatabase> | undefined;
  constructor(private readonly driver: SessionDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.trx) return this.trx.executeQuery<R>(query);
    // A lone statement: its own transaction, begun by us.
    const trx = await this.driver.begin();
    try {
      const result = await trx.executeQuery<R>(query);
      await trx.commit().execute();
      return result;
    } catch (error) {
      await trx.rollback().execute().catch(() => undefined);
      throw error;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported in an OAuth session');
  }
}

class SessionDriver implements Driver {
  constructor(
    private readonly inner: Inner,
    private readonly opts: SessionDbOptions,
  ) {}

  async init(): Promise<void> {}

  /** A transaction on the inner handle: READ ONLY for brain:read, the client's name set before anything else. */
  async begin(settings: TransactionSettings = {}): Promise<ControlledTransaction<KnowledgeDatabase>> {
    let builder = this.inner.startTransaction();
    if (settings.isolationLevel) builder = builder.setIsolationLevel(settings.isolationLevel);
    if (this.opts.readOnly) builder = builder.setAccessMode('read only');
    else if (settings.accessMode) builder = builder.setAccessMode(settings.accessMode);
    const trx = await builder.execute();
    try {
      await trx.executeQuery(CompiledQuery.raw("SELECT set_config('brain.client', $1, true)", [this.opts.client]));
    } catch (error) {
      await trx.rollback().execute().catch(() => undefined);
      throw error;
    }
    return trx;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new SessionConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as SessionConnection).trx = await this.begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as SessionConnection;
    const trx = c.trx;
    c.trx = undefined;
    await trx?.commit().execute();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as SessionConnection;
    const trx = c.trx;
    c.trx = undefined;
    await trx?.rollback().execute();
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.raw(connection, `SAVEPOINT ${quote(name)}`, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.raw(connection, `ROLLBACK TO SAVEPOINT ${quote(name)}`, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.raw(connection, `RELEASE SAVEPOINT ${quote(name)}`, compile);
  }

  private async raw(connection: DatabaseConnection, text: string, _compile: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(text));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // A transaction kysely left open (it should not) is rolled back, never left holding the inner connection.
    const c = connection as SessionConnection;
    if (c.trx) await this.rollbackTransaction(c).catch(() => undefined);
  }

  async destroy(): Promise<void> {}
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

class SessionDialect implements Dialect {
  constructor(
    private readonly inner: Inner,
    private readonly opts: SessionDbOptions,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new SessionDriver(this.inner, this.opts);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

/** The session's handle over the subject's handle `inner`. Destroying it leaves `inner` open. */
export function sessionDb(inner: Inner, opts: SessionDbOptions): Inner {
  return new Kysely<KnowledgeDatabase>({ dialect: new SessionDialect(inner, opts) });
}
