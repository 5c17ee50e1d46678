// A kysely dialect over the embedded PGlite database that runs every statement as one
// subject's role. Outside an explicit transaction each statement gets its own
// transaction with SET LOCAL ROLE; inside one, the role is set right after BEGIN.
// So no query of a subject's handle ever runs with the process's superuser rights.
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
import { ident } from './sql.js';

export class PGliteRoleDialect implements Dialect {
  constructor(
    private readonly embedded: EmbeddedDatabase,
    private readonly role: string,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteRoleDriver(this.embedded, this.role);
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

  constructor(
    private readonly embedded: EmbeddedDatabase,
    private readonly role: string,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.embedded.lock.acquire();
    const connection = new PGliteRoleConnection(this.embedded, this.role);
    this.releases.set(connection, release);
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as PGliteRoleConnection).begin(settings);
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

class PGliteRoleConnection implements DatabaseConnection {
  private inTransaction = false;

  constructor(
    private readonly embedded: EmbeddedDatabase,
    private readonly role: string,
  ) {}

  async begin(settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : '';
    const mode = settings.accessMode ? ` ${settings.accessMode.toUpperCase()}` : '';
    await this.embedded.pg.exec(`BEGIN${level}${mode}; SET LOCAL ROLE ${ident(this.role)}`);
    this.inTransaction = true;
  }

  async end(command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    this.inTransaction = false;
    await this.embedded.pg.exec(command);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const pg = this.embedded.pg;
    const run = async (): Promise<QueryResult<R>> => {
      const result = await pg.query<R>(compiled.sql, compiled.parameters as unknown[]);
      return {
        rows: result.rows,
        ...(result.affectedRows !== undefined && compiled.query.kind !== 'SelectQueryNode'
          ? { numAffectedRows: BigInt(result.affectedRows) }
          : {}),
      };
    };
    if (this.inTransaction) return run();
    await pg.exec(`BEGIN; SET LOCAL ROLE ${ident(this.role)}`);
    try {
      const result = await run();
      await pg.exec('COMMIT');
      return result;
    } catch (error) {
      await pg.exec('ROLLBACK');
      throw error;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the embedded brain');
  }
}
