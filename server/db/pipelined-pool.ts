// Fewer round trips per transaction on a PostgreSQL server.
//
// Kysely runs a transaction as `begin`, its statements, `commit`: each its own round trip, each a
// socket write and a wake-up of the server process. On a small machine those writes are the
// largest single cost of a write request (measured: about a quarter of the API process's CPU).
// This pool gives Kysely clients that
//
// - hold `begin` back and send it with the transaction's first statement, in one write (a
//   transaction that runs no statement sends neither `begin` nor `commit`);
// - send `commit` with a statement marked as the last of its transaction (`THEN_COMMIT`), in one
//   write; Kysely's own `commit` that follows is then answered here.
//
// Both use node-postgres's pipeline mode: each statement keeps its own Sync, so the server
// answers them one by one, exactly as if they had been sent apart; only the waiting between them
// is gone. A failed first statement leaves the transaction begun and aborted, and Kysely rolls it
// back as always. A failed marked statement makes its `commit` a rollback (PostgreSQL commits
// nothing in an aborted transaction), and its error is the statement's; a refused `commit` fails
// the marked statement with the commit's error. Either way the transaction did not commit.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** Appended to a statement (Kysely: `.modifyEnd(sql.raw(THEN_COMMIT))`): the last of its transaction; the commit goes with it. */
export const THEN_COMMIT = '/* till: then commit */';

type QueryResult = { command: string; rowCount: number | null; rows: unknown[] };

interface PipelinedClient {
  query(sql: string, parameters: readonly unknown[]): Promise<QueryResult>;
  release(): void;
}

const nothingRan = (command: string): Promise<QueryResult> => Promise.resolve({ command, rowCount: null, rows: [] });

/** `pool` must be made with `pipeline: true`. */
export function pipelinedPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PipelinedClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = pipelinedClient(client)));
      // Kysely calls query(sql, parameters) only: no cursor is configured.
      return wrapper as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

function pipelinedClient(client: pg.PoolClient): PipelinedClient {
  /** `begin` was asked for and not sent yet. */
  let beginPending = false;
  /** The transaction committed with its marked statement; Kysely's `commit` is answered here. */
  let committed = false;
  const run = (sql: string, parameters: readonly unknown[]) => client.query(sql, parameters as unknown[]) as unknown as Promise<QueryResult>;
  return {
    query(sql, parameters) {
      if (sql === 'begin') {
        beginPending = true;
        committed = false;
        return nothingRan('BEGIN');
      }
      if (sql === 'commit' || sql === 'rollback') {
        // No statement ran, so no transaction was begun; or the marked statement committed it.
        if (beginPending || committed) {
          beginPending = committed = false;
          return nothingRan(sql.toUpperCase());
        }
        return run(sql, parameters);
      }
      const begin = beginPending;
      const commit = sql.endsWith(THEN_COMMIT) && (begin || client.getTransactionStatus() === 'T');
      beginPending = false;
      if (!begin && !commit) return run(sql, parameters);
      return together(client, begin, sql, parameters, commit).then((result) => {
        committed = commit;
        return result;
      });
    },
    release() {
      beginPending = committed = false;
      client.release();
    },
  };
}

/** Sends `begin` (when asked), the statement and `commit` (when asked) in one write; answers the statement's result. */
async function together(client: pg.PoolClient, begin: boolean, sql: string, parameters: readonly unknown[], commit: boolean): Promise<QueryResult> {
  const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  stream.cork();
  let sent: [Promise<unknown> | undefined, Promise<QueryResult>, Promise<unknown> | undefined];
  try {
    sent = [begin ? client.query('begin') : undefined, client.query(sql, parameters as unknown[]) as unknown as Promise<QueryResult>, commit ? client.query('commit') : undefined];
  } finally {
    stream.uncork();
  }
  // Every answer is awaited, so none is left rejected and unheard.
  const [began, statement, committed] = await Promise.allSettled(sent);
  if (began.status === 'rejected') throw began.reason;
  if (statement.status === 'rejected') throw statement.reason;
  if (committed.status === 'rejected') throw committed.reason;
  // (A statement that succeeded leaves no aborted transaction behind, so this is only a guard.)
  if (commit && (committed.value as QueryResult).command !== 'COMMIT') throw new Error(`The transaction did not commit (${(committed.value as QueryResult).command}).`);
  return statement.value;
}
