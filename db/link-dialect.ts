// The other end of the database link (db/link-server.ts): a kysely dialect whose statements
// run in the process that holds the embedded brain, as one subject's role. A command given
// this handle works exactly as with its own PGlite (the same SQL, rows, errors and
// transactions), so every subject command runs next to a running `brain up` unchanged.
import { createConnection, type Socket } from 'node:net';
import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  Kysely,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Subject } from '../config/subjects.js';
import type { KnowledgeDatabase } from './database.js';
import { decodeLine, encodeLine, lineReader, LinkedDatabaseError, type WireError } from './link-wire.js';
import type { SubjectDb } from './subject-db.js';

interface Answer {
  id?: number;
  ok?: boolean;
  rows?: unknown[];
  affected?: bigint;
  error?: WireError;
}

/** One socket to the holder, shared by every subject handle of this process. */
export class LinkClient {
  private nextId = 1;
  private nextConn = 1;
  private readonly pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  private closedBy: Error | undefined;
  private users = 0;

  private constructor(
    private readonly socket: Socket,
    /** For messages: "brain up (process 1234)". */
    readonly holder: string,
  ) {
    socket.on('data', lineReader((line) => this.answer(decodeLine<Answer>(line)), 256 * 2 ** 20));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the connection closed')));
    socket.unref(); // only a request in flight keeps the process alive
  }

  static connect(link: { host: string; port: number; token: string }, holder: string, timeoutMs = 5_000): Promise<LinkClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: link.host, port: link.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`${holder} did not answer on its database link within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(new Error(`cannot reach ${holder} on its database link: ${error.message}`, { cause: error }));
      };
      socket.once('error', fail);
      socket.once('connect', () => socket.write(encodeLine({ token: link.token })));
      let buffered = '';
      const onHello = (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const nl = buffered.indexOf('\n');
        if (nl === -1) return;
        socket.off('data', onHello);
        socket.off('error', fail);
        clearTimeout(timer);
        const hello = decodeLine<Answer>(buffered.slice(0, nl));
        if (!hello.ok) {
          socket.destroy();
          reject(new Error(`${holder} refused the database link: ${hello.error?.message ?? 'no reason given'}`));
          return;
        }
        const client = new LinkClient(socket, holder);
        if (buffered.length > nl + 1) client.answer(decodeLine<Answer>(buffered.slice(nl + 1)));
        resolve(client);
      };
      socket.on('data', onHello);
    });
  }

  /** A new connection id: a kysely connection, and the transaction it may open. */
  connection(): number {
    return this.nextConn++;
  }

  request(message: Record<string, unknown>): Promise<Answer> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.socket.ref();
      this.socket.write(encodeLine({ id, ...message }));
    }).then((a) => {
      if (a.error) throw new LinkedDatabaseError(a.error);
      return a;
    });
  }

  private answer(a: Answer): void {
    const p = a.id === undefined ? undefined : this.pending.get(a.id);
    if (!p) return;
    this.pending.delete(a.id!);
    if (this.pending.size === 0) this.socket.unref();
    p.resolve(a);
  }

  private fail(cause: Error): void {
    if (this.closedBy) return;
    this.closedBy = new Error(`lost the database link to ${this.holder} (${cause.message}); it may have stopped: run the command again`, { cause });
    for (const p of this.pending.values()) p.reject(this.closedBy);
    this.pending.clear();
  }

  /** Counts a handle using this socket; the last one to let go closes it. */
  use(): () => void {
    this.users++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) {
        this.closedBy ??= new Error('the database link was closed');
        this.socket.end();
      }
    };
  }
}

class LinkConnection implements DatabaseConnection {
  readonly id: number;
  constructor(
    private readonly client: LinkClient,
    private readonly subject: string,
  ) {
    this.id = client.connection();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const a = await this.client.request({ op: 'query', subject: this.subject, conn: this.id, sql: compiled.sql, params: compiled.parameters });
    // As the embedded dialect reports it (db/pglite-dialect.ts): affected rows for anything but a SELECT.
    return { rows: (a.rows ?? []) as R[], ...(a.affected !== undefined && compiled.query.kind !== 'SelectQueryNode' ? { numAffectedRows: a.affected } : {}) };
  }

  async begin(settings: TransactionSettings): Promise<void> {
    await this.client.request({ op: 'begin', subject: this.subject, conn: this.id, ...(settings.isolationLevel ? { isolation: settings.isolationLevel } : {}), ...(settings.accessMode ? { access: settings.accessMode } : {}) });
  }

  async end(op: 'commit' | 'rollback'): Promise<void> {
    await this.client.request({ op, conn: this.id });
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported over the database link');
  }
}

class LinkDriver implements Driver {
  constructor(
    private readonly client: LinkClient,
    private readonly subject: string,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new LinkConnection(this.client, this.subject);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as LinkConnection).begin(settings);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LinkConnection).end('commit');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LinkConnection).end('rollback');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

class LinkDialect implements Dialect {
  constructor(
    private readonly client: LinkClient,
    private readonly subject: string,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new LinkDriver(this.client, this.subject);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

/** A subject handle whose statements run in the process holding the brain, as the subject's role. */
export function openLinkedSubjectDb(client: LinkClient, subject: Subject): SubjectDb {
  const release = client.use();
  const db = new Kysely<KnowledgeDatabase>({ dialect: new LinkDialect(client, subject.name) });
  return {
    subject,
    db,
    async close() {
      await db.destroy();
      release();
    },
  };
}
