// Kysely on PGlite: one database session, taken in turn, with the plain reads of many requests
// sent together. PGlite is one session in this process. A transaction holds it from `begin` to
// `commit`, and any other statement (a write, a lock, session state) holds it for the rest of its
// Kysely connection, as kysely-pglite-dialect's driver does. A plain read outside a transaction
// (pipelined-pool.ts's `plainRead`: it takes no row lock and leaves nothing behind), or a write
// marked SHARED_WRITE (its doc says why it may share), holds it for no longer than itself, so those
// that wait for one turn of the session all go in the next turn, in one exchange with the engine
// (PgliteStatements.queryMany): each is answered on its own, an error is its own. One exchange in
// place of many saves PGlite's JavaScript around each, and the engine runs them back to back.
// This is the PGlite side of the shared connections that carry the same statements on PostgreSQL.
import type { Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { plainRead, SHARED_WRITE } from './pipelined-pool.js';
import type { PgliteStatements, Statement } from './pglite-statements.js';
import { sqlSpan } from './traced-sql.js';

/** Statements sent in one exchange at most. */
const MAX_BATCH = 64;

/** The session, taken in turn: first come, first served. */
export class SessionTurns {
  private last: Promise<void> = Promise.resolve();

  /** Resolves, once it is the caller's turn, with what ends that turn. */
  take(): Promise<() => void> {
    let end!: () => void;
    const turn = new Promise<void>((resolve) => (end = resolve));
    const ready = this.last.then(() => end);
    this.last = this.last.then(() => turn);
    return ready;
  }
}

type Queued = Statement & { resolve: (result: Results) => void; reject: (error: unknown) => void };

/** Statements that need not hold the session (see above), waiting for a turn of it; all that wait go in the next one. */
export class SharedBatches {
  private queued: Queued[] = [];
  private waiting = false;

  constructor(
    private readonly turns: SessionTurns,
    private readonly statements: PgliteStatements,
  ) {}

  run(text: string, values: unknown[]): Promise<Results> {
    return new Promise((resolve, reject) => {
      this.queued.push({ text, values, resolve, reject });
      this.wait();
    });
  }

  private wait(): void {
    if (this.waiting) return;
    this.waiting = true;
    // The reads queued in the rest of this turn of the event loop go too (as a corked socket's writes do).
    void this.turns.take().then((end) => setImmediate(() => void this.send().finally(end)));
  }

  private async send(): Promise<void> {
    this.waiting = false;
    const batch = this.queued.splice(0, MAX_BATCH);
    if (this.queued.length) this.wait();
    try {
      const answers = await this.statements.queryMany(batch);
      batch.forEach((read, i) => (answers[i]!.error === undefined ? read.resolve(answers[i]!.result!) : read.reject(answers[i]!.error)));
    } catch (error) {
      for (const read of batch) read.reject(error);
    }
  }
}

/** A Kysely connection: plain reads and shared writes go with the next batch until anything else takes the session for the rest of it. */
class SessionConnection implements DatabaseConnection {
  private turn: Promise<() => void> | undefined;

  constructor(
    private readonly statements: PgliteStatements,
    private readonly turns: SessionTurns,
    private readonly reads: SharedBatches,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...compiled.parameters];
    const result =
      this.turn === undefined && (plainRead(compiled.sql) || compiled.sql.endsWith(SHARED_WRITE))
        ? await sqlSpan(compiled.sql, () => this.reads.run(compiled.sql, values))
        : await this.held(compiled.sql, values);
    const rows = result.rows as R[];
    return result.affectedRows ? { numAffectedRows: BigInt(result.affectedRows), rows } : { rows };
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.held(compiled.sql, [...compiled.parameters]);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) as R[] };
  }

  /** Ends its turn of the session, if it took one. */
  release(): void {
    void this.turn?.then((end) => end());
  }

  private async held(text: string, values: unknown[]): Promise<Results> {
    this.turn ??= this.turns.take();
    await this.turn;
    return this.statements.query(text, values);
  }
}

class PgliteDriver implements Driver {
  constructor(
    private readonly statements: PgliteStatements,
    private readonly turns: SessionTurns,
    private readonly reads: SharedBatches,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new SessionConnection(this.statements, this.turns, this.reads);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const begin = settings.isolationLevel ? `start transaction isolation level ${settings.isolationLevel}` : 'begin';
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as SessionConnection).release();
  }

  // The database's owner closes PGlite.
  async destroy(): Promise<void> {}
}

/** Kysely's dialect for Till's PGlite session (see above). */
export class PgliteSessionDialect implements Dialect {
  private readonly turns = new SessionTurns();
  private readonly reads: SharedBatches;

  constructor(private readonly statements: PgliteStatements) {
    this.reads = new SharedBatches(this.turns, statements);
  }

  /**
   * Runs `work` (statements sent to PGlite without Kysely: the job queue's, the rate limiter's) in
   * a turn of the session of its own, so none of them runs inside a Kysely transaction. `work`
   * must not wait for a Kysely statement.
   */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    const end = await this.turns.take();
    try {
      return await work();
    } finally {
      end();
    }
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PgliteDriver(this.statements, this.turns, this.reads);
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}
