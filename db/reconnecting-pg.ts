// A subject's server connection pool that survives the database going away. node-postgres
// already replaces a dead client with a fresh one on the next checkout; what it needs from
// us: an `error` listener (without one, a client dying while idle kills the process with
// "Unhandled 'error' event"), connects retried while the server restarts, and each failure
// labelled with whether it may have written anything, so only safe work is tried again:
//   - a connect: nothing was sent, always safe;
//   - a statement inside a transaction before COMMIT: the server rolls the transaction back
//     with the connection, so the whole transaction may run again (write() does that);
//   - a lone read: run again at once, on a fresh connection;
//   - a lone write or the COMMIT itself: the outcome is unknown; never repeated.
import {
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type PostgresPool,
  type PostgresPoolClient,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { connectionLost, isConnectionLoss, retryOnConnectionLoss, safeToRetry } from './connection-loss.js';

/** Where connection events are reported (a pino logger fits). Never given credentials. */
export interface ConnectionLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

function describe(error: unknown): { code?: string; message: string } {
  const e = error as { code?: unknown; message?: unknown };
  return { ...(typeof e?.code === 'string' ? { code: e.code } : {}), message: typeof e?.message === 'string' ? e.message : String(error) };
}

/** Wraps a pg pool for kysely: connects retried, client errors listened to and labelled. */
export function reconnectingPool(pool: pg.Pool, log: ConnectionLog, label: string): PostgresPool {
  // An idle client the server dropped: pg has already removed it from the pool.
  pool.on('error', (error) => log.warn({ db: label, err: describe(error) }, 'database connection lost while idle; it will be replaced'));
  const dead = new WeakSet<pg.PoolClient>();
  const listening = new WeakSet<pg.PoolClient>();
  const inUse = new WeakSet<pg.PoolClient>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await retryOnConnectionLoss(
        () =>
          pool.connect().catch((error: unknown) => {
            throw isConnectionLoss(error) ? connectionLost(error, 'no') : error;
          }),
        isConnectionLoss,
        { onRetry: (error, attempt, delayMs) => log.warn({ db: label, attempt, delayMs, err: describe(error) }, 'database unavailable; retrying the connection') },
      );
      if (!listening.has(client)) {
        listening.add(client);
        // A client in use whose connection dies emits `error` too; pg-pool listens only while it is idle.
        client.on('error', (error) => {
          dead.add(client);
          if (inUse.has(client)) log.warn({ db: label, err: describe(error) }, 'database connection lost while in use');
        });
        client.on('end', () => dead.add(client));
      }
      inUse.add(client);
      return {
        query(...args: unknown[]) {
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          if (!(result instanceof Promise)) return result;
          return result.catch((error: unknown) => {
            // A query failing on a connection that has died carries no SQLSTATE ("terminated unexpectedly"): the client's state says it.
            throw dead.has(client) || isConnectionLoss(error) ? connectionLost(error, 'unknown') : error;
          });
        },
        release(destroy?: boolean) {
          inUse.delete(client);
          // A dead client is destroyed rather than returned to the pool.
          client.release(destroy || dead.has(client) ? true : undefined);
        },
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

/** A lone statement that only reads, so running it again cannot repeat a write. */
function isRead(query: CompiledQuery): boolean {
  if (query.query.kind === 'SelectQueryNode') return true;
  // Our own raw SQL (not an error's text): a SELECT or WITH that names no data-changing command.
  return query.query.kind === 'RawNode' && /^\s*(select|with)\b/i.test(query.sql) && !/\b(insert|update|delete|merge|nextval|setval|lock)\b/i.test(query.sql);
}

class ReconnectingConnection implements DatabaseConnection {
  inTransaction = false;
  /** The inner connection went back to the pool and no replacement could be had. */
  released = false;
  constructor(
    private readonly driver: Driver,
    public inner: DatabaseConnection,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      // In a transaction nothing has committed yet: the transaction died with the connection.
      if (this.inTransaction) throw connectionLost(error, 'no');
      if (!isRead(query)) throw connectionLost(error, 'unknown');
      return retryOnConnectionLoss(async () => {
        await this.replaceInner();
        try {
          return await this.inner.executeQuery<R>(query);
        } catch (again) {
          throw isConnectionLoss(again) ? connectionLost(again, 'no') : again;
        }
      }, safeToRetry);
    }
  }

  private async replaceInner(): Promise<void> {
    if (!this.released) {
      this.released = true;
      await this.driver.releaseConnection(this.inner);
    }
    this.inner = await this.driver.acquireConnection();
    this.released = false;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** A statement inside a transaction: if the connection went, nothing of the transaction committed. */
async function inTransaction(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    throw isConnectionLoss(error) ? connectionLost(error, 'no') : error;
  }
}

class ReconnectingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ReconnectingConnection(this.inner, await this.inner.acquireConnection());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as ReconnectingConnection;
    await inTransaction(() => this.inner.beginTransaction(c.inner, settings));
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as ReconnectingConnection;
    c.inTransaction = false;
    try {
      await this.inner.commitTransaction(c.inner);
    } catch (error) {
      // The COMMIT may have been applied before the connection went: unknown.
      throw isConnectionLoss(error) ? connectionLost(error, 'unknown') : error;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as ReconnectingConnection;
    c.inTransaction = false;
    try {
      await this.inner.rollbackTransaction(c.inner);
    } catch (error) {
      // The server rolls back a transaction whose connection is gone; the error worth
      // reporting is the one that made us roll back, which kysely rethrows.
      if (!isConnectionLoss(error)) throw error;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await inTransaction(() => this.inner.savepoint!((connection as ReconnectingConnection).inner, name, compileQuery));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await inTransaction(() => this.inner.rollbackToSavepoint!((connection as ReconnectingConnection).inner, name, compileQuery));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await inTransaction(() => this.inner.releaseSavepoint!((connection as ReconnectingConnection).inner, name, compileQuery));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as ReconnectingConnection;
    if (!c.released) await this.inner.releaseConnection(c.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** kysely's Postgres dialect over a reconnecting pool, with failures labelled as above. */
export class ReconnectingPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new ReconnectingDriver(super.createDriver());
  }
}
