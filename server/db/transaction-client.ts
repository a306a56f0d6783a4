// A connection of its own, as the pipelined pool (pipelined-pool.ts) gives it to Kysely: for a
// transaction, and for any statement that is not a plain read. Its statements leave in as few
// writes as their order allows:
//
// - `begin` is held back and sent with the transaction's first statement (a transaction that
//   runs no statement sends neither `begin` nor `commit`);
// - a statement marked THEN_COMMIT, the last of its transaction, goes with the `commit`; Kysely's
//   own `commit` that follows is then answered here;
// - a statement marked WITH_NEXT, inside a transaction, is not sent at once: it goes with the
//   transaction's next statement, or with its `commit`, and a `rollback` drops it unsent.
//
// Each statement keeps its own Sync (node-postgres's pipeline mode), so the server answers them one
// by one, exactly as if they had been sent apart; only the waiting between them is gone. Errors
// keep their order: a failed statement aborts the transaction, so those sent after it fail
// too, and the first failure is the one thrown. A failed statement sent with the `commit` makes
// the commit a rollback, and its error is thrown, so the transaction never seems to commit.
import type pg from 'pg';
import { type QueryResult, runStatementConfig } from './described-once.js';
import type { StatementNames } from './prepared-statements.js';

/** Appended to a statement (Kysely: `.modifyEnd(sql.raw(THEN_COMMIT))`): the last of its transaction; the commit goes with it. */
export const THEN_COMMIT = '/* till: then commit */';

/**
 * Appended to a write inside a transaction whose answer nobody reads (`.modifyEnd(sql.raw(WITH_NEXT))`):
 * it is sent with the transaction's next statement (or its commit), saving a round trip. Only
 * for a statement whose failure is a bug, not an answer: its error is thrown by the next
 * statement's call, not its own, and its call answers at once, with no rows and no count.
 * Outside a transaction it runs at once, as any statement.
 */
export const WITH_NEXT = '/* till: with the next */';

export interface PipelinedClient {
  query(sql: string, parameters: readonly unknown[]): Promise<QueryResult>;
  release(): void;
}

const nothingRan = (command: string): Promise<QueryResult> => Promise.resolve({ command, rowCount: null, rows: [] });

export const streamOf = (client: pg.PoolClient) => (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;

/** A WITH_NEXT statement's answer: it will be sent later (Kysely counts no rows for this command). */
const HELD = 'HELD';

/** A Kysely connection on `client`, a connection of its own (see above). */
export function transactionClient(client: pg.PoolClient, names: StatementNames): PipelinedClient {
  /** `begin` was asked for and not sent yet. */
  let beginPending = false;
  /** The transaction committed with its marked statement; Kysely's `commit` is answered here. */
  let committed = false;
  /** WITH_NEXT statements not sent yet, in order. */
  let held: pg.QueryConfig[] = [];
  const reset = () => {
    beginPending = committed = false;
    held = [];
  };
  const inTransaction = () => beginPending || client.getTransactionStatus() === 'T';
  return {
    query(sql, parameters) {
      if (sql === 'begin') {
        reset();
        beginPending = true;
        return nothingRan('BEGIN');
      }
      if (sql === 'rollback') {
        const nothingSent = beginPending || committed;
        reset();
        return nothingSent ? nothingRan('ROLLBACK') : runStatement(client, names, sql, parameters);
      }
      if (sql === 'commit') {
        // No statement was sent, so no transaction was begun; or the marked statement committed it.
        if ((beginPending && held.length === 0) || committed) {
          reset();
          return nothingRan('COMMIT');
        }
        if (held.length === 0) return runStatement(client, names, sql, parameters);
        const sending = { begin: beginPending, statements: held, commit: true };
        reset();
        return together(client, sending, names).then((answers) => answers[answers.length - 1]!);
      }
      // A programming error, refused so that tests find it: nothing may follow the commit.
      if (committed) return Promise.reject(new Error('A statement after the THEN_COMMIT statement of its transaction: that one must be the last.'));
      if (sql.endsWith(WITH_NEXT) && inTransaction()) {
        held.push(names.config(sql, parameters));
        return nothingRan(HELD);
      }
      const commit = sql.endsWith(THEN_COMMIT) && inTransaction();
      if (!beginPending && !commit && held.length === 0) return runStatement(client, names, sql, parameters);
      const sending = { begin: beginPending, statements: [...held, names.config(sql, parameters)], commit };
      beginPending = false;
      held = [];
      return together(client, sending, names).then((answers) => {
        committed = commit;
        return answers[sending.statements.length - 1]!;
      });
    },
    release() {
      reset();
      client.release();
    },
  };
}

/**
 * Runs a statement on a connection of its own. Outside a transaction, one whose prepared form
 * went stale (see StatementNames) runs once more, prepared anew; inside one, the transaction has
 * failed with it.
 */
function runStatement(client: pg.PoolClient, names: StatementNames, sql: string, parameters: readonly unknown[]): Promise<QueryResult> {
  return runRenewing(names, sql, parameters, (config) => runStatementConfig(client, config), client.getTransactionStatus() === 'I');
}

/** Runs a statement with `send`; when its prepared form went stale, names it anew and, with `retry`, sends it once more. */
export async function runRenewing(
  names: StatementNames,
  sql: string,
  parameters: readonly unknown[],
  send: (config: pg.QueryConfig) => Promise<QueryResult>,
  retry: boolean,
): Promise<QueryResult> {
  const config = names.config(sql, parameters);
  try {
    return await send(config);
  } catch (error) {
    if (!names.renewAfter(error, config) || !retry) throw error;
    return send(names.config(sql, parameters));
  }
}

interface Sending {
  begin: boolean;
  statements: pg.QueryConfig[];
  commit: boolean;
}

/**
 * Sends `begin` (when asked), the statements and `commit` (when asked) in one write; answers the
 * statements' results, then the commit's. The first failure is thrown.
 */
async function together(client: pg.PoolClient, { begin, statements, commit }: Sending, names: StatementNames): Promise<QueryResult[]> {
  const stream = streamOf(client);
  stream.cork();
  const sent: Promise<QueryResult>[] = [];
  try {
    if (begin) sent.push(client.query('begin') as unknown as Promise<QueryResult>);
    for (const config of statements) sent.push(runStatementConfig(client, config));
    if (commit) sent.push(client.query('commit') as unknown as Promise<QueryResult>);
  } finally {
    stream.uncork();
  }
  // Every answer is awaited, so none is left rejected and unheard.
  const answers = await Promise.allSettled(sent);
  const failed = answers.findIndex((answer) => answer.status === 'rejected');
  if (failed !== -1) {
    const config = statements[failed - (begin ? 1 : 0)];
    const reason: unknown = (answers[failed] as PromiseRejectedResult).reason;
    if (config) names.renewAfter(reason, config);
    throw reason;
  }
  const values = answers.slice(begin ? 1 : 0).map((answer) => (answer as PromiseFulfilledResult<QueryResult>).value);
  // (Statements that succeeded leave no aborted transaction behind, so this is only a guard.)
  const last = values[values.length - 1];
  if (commit && last?.command !== 'COMMIT') throw new Error(`The transaction did not commit (${last?.command}).`);
  return values;
}
