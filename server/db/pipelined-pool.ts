// Fewer round trips, and fewer wake-ups of the server, on a PostgreSQL server.
//
// Kysely runs a transaction as `begin`, its statements, `commit`: each its own round trip, each a
// socket write and a wake-up of the server process. On a small machine those writes are the
// largest single cost of a request (measured: a quarter of the API process's CPU and more).
// This pool gives Kysely clients that
//
// - for a transaction, send `begin` with its first statement, `commit` with its last (THEN_COMMIT),
//   and a write whose answer nobody reads with the statement after it (WITH_NEXT), each in one
//   write (transaction-client.ts);
// - send plain reads and SHARED_WRITE statements outside transactions over a few connections
//   shared by every request (SharedConnections), many in one write;
// - run statements with values as prepared statements (StatementNames).
//
// All use node-postgres's pipeline mode: each statement keeps its own Sync, so the server
// answers them one by one, exactly as if they had been sent apart; only the waiting between them
// is gone.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { type QueryResult, runStatementConfig } from './described-once.js';
import { StatementNames } from './prepared-statements.js';
import { type PipelinedClient, runRenewing, streamOf, transactionClient } from './transaction-client.js';

/**
 * Appended to a write outside any transaction that may share a connection with plain reads
 * (`.modifyEnd(sql.raw(SHARED_WRITE))`). Only for a statement that can wait for no transaction
 * whose end depends on this process's JavaScript: it touches rows that transactions lock only
 * in their last statement (sent with the commit), or only rows no transaction writes. The
 * statement's doc says why it qualifies.
 */
export const SHARED_WRITE = '/* till: shared write */';

/**
 * `pool` must be made with `pipeline: true`. `sharedConnections` of its connections carry the
 * plain reads and SHARED_WRITE statements outside transactions of every request, pipelined (see
 * SharedConnections); 0 sends each on a connection of its own.
 */
export function pipelinedPool(pool: pg.Pool, sharedConnections: number): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PipelinedClient>();
  const names = new StatementNames();
  const dedicated = async () => {
    const client = await pool.connect();
    let wrapper = wrappers.get(client);
    if (!wrapper) wrappers.set(client, (wrapper = transactionClient(client, names)));
    return wrapper;
  };
  const shared = sharedConnections > 0 ? new SharedConnections(pool, sharedConnections, names) : undefined;
  return {
    // Kysely calls query(sql, parameters) only: no cursor is configured.
    connect: async () => (shared ? lazyClient(dedicated, shared) : await dedicated()) as unknown as PostgresPoolClient,
    end: async () => {
      shared?.close();
      await pool.end();
    },
  };
}

/**
 * A Kysely connection that goes to the shared connections only with plain reads (`plainRead`)
 * and SHARED_WRITE statements, and takes a connection of its own, for good, at its first other
 * query: a transaction's `begin`, another write, or anything that could leave state on a
 * connection or wait for a lock (Kysely's migrator takes a session lock through
 * `db.connection()`). A plain read never waits for a row lock, so no statement queued behind it
 * on a shared connection can wait on a transaction that waits for that statement.
 */
function lazyClient(dedicated: () => Promise<PipelinedClient>, shared: SharedConnections): PipelinedClient {
  let own: Promise<PipelinedClient> | undefined;
  return {
    async query(sql, parameters) {
      if (!own && (plainRead(sql) || sql.endsWith(SHARED_WRITE))) return shared.run(sql, parameters);
      own ??= dedicated();
      return (await own).query(sql, parameters);
    },
    release() {
      // (A connection that could not be had was never held.)
      if (own)
        void own.then(
          (client) => client.release(),
          () => undefined,
        );
    },
  };
}

const READ = /^\s*(select|with)\b/i;
/** Row locks, session state, sequences, notices, waits, and data-modifying CTEs: not plain reads. */
const NOT_ONLY_READ =
  /\b(for\s+(update|share|no\s+key\s+update|key\s+share)|insert|update|delete|merge|pg_advisory\w*|set_config|nextval|setval|pg_notify|pg_sleep\w*|pg_terminate_backend|pg_cancel_backend|lo_\w+|txid_current|pg_current_xact_id)\b/i;

/** A SELECT (or WITH … SELECT) that only reads: it takes no row lock and leaves nothing behind on its connection. */
export const plainRead = (sql: string): boolean => READ.test(sql) && !NOT_ONLY_READ.test(sql);

type Slot = { client: pg.PoolClient; inFlight: number; corked: boolean; lost: boolean };

/**
 * A few connections that carry the plain reads (and SHARED_WRITEs) of many requests at once, in node-postgres's
 * pipeline mode: each statement is answered on its own (its own Sync; an error is its own), and
 * the statements written in one turn of the event loop leave in one write. The least busy
 * connection takes the next statement, so one slow statement holds back few others. A lost
 * connection is given back to the pool (which closes it) and replaced on the next statement.
 */
class SharedConnections {
  private readonly slots: Slot[] = [];
  private opening = 0;
  /** Settles when the connection being opened is (or could not be). */
  private opened: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly size: number,
    private readonly names: StatementNames,
  ) {}

  /** Runs a statement; one whose prepared form went stale (see StatementNames) runs once more, prepared anew. */
  run(sql: string, parameters: readonly unknown[]): Promise<QueryResult> {
    return runRenewing(this.names, sql, parameters, (config) => this.runOnce(config), true);
  }

  private async runOnce(config: pg.QueryConfig): Promise<QueryResult> {
    const slot = await this.pick();
    if (!slot.corked) {
      slot.corked = true;
      streamOf(slot.client).cork();
      setImmediate(() => {
        slot.corked = false;
        streamOf(slot.client).uncork();
      });
    }
    slot.inFlight += 1;
    try {
      return await runStatementConfig(slot.client, config);
    } finally {
      slot.inFlight -= 1;
    }
  }

  close(): void {
    this.closed = true;
    for (const slot of this.slots.splice(0)) {
      slot.lost = true;
      slot.client.release();
    }
  }

  /** The least busy connection; another one is opened while all are busy and there are fewer than `size`. */
  private async pick(): Promise<Slot> {
    for (;;) {
      let best: Slot | undefined;
      for (const slot of this.slots) if (!best || slot.inFlight < best.inFlight) best = slot;
      const full = this.slots.length + this.opening >= this.size;
      if (best && (best.inFlight === 0 || full)) return best;
      if (!full) return this.open();
      await this.opened; // the first statements wait for the first connection
    }
  }

  private open(): Promise<Slot> {
    this.opening += 1;
    const opened = (async () => {
      try {
        const client = await this.pool.connect();
        const slot: Slot = { client, inFlight: 0, corked: false, lost: false };
        client.once('end', () => this.drop(slot));
        if (this.closed) client.release();
        else this.slots.push(slot);
        return slot;
      } finally {
        this.opening -= 1;
      }
    })();
    this.opened = opened.then(
      () => undefined,
      () => undefined,
    );
    return opened;
  }

  private drop(slot: Slot): void {
    if (slot.lost) return;
    slot.lost = true;
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    slot.client.release(new Error('connection lost'));
  }
}
