// A write marked WITH_NEXT inside a transaction goes with the transaction's next statement or its
// commit (server/db/transaction-client.ts): the transaction still commits all or nothing, a failed
// held write fails the transaction with its own error, a rollback drops it unsent, and outside a
// transaction it runs at once. One connection in the pool, so each step reuses the last one's.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { THEN_COMMIT, WITH_NEXT } from '../../server/db/transaction-client.js';
import { randomToken } from '../../server/shared/crypto.js';

describe('writes sent with the next statement (PostgreSQL)', () => {
  let database: TillDatabase;
  const table = `with_next_${randomToken(8).toLowerCase()}`;
  const ids = async () => (await database.sql.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r: { id: number }) => r.id);
  const held = (on: any, id: number) => on.insertInto(table).values({ id }).modifyEnd(sql.raw(WITH_NEXT)).execute();
  const inTransaction = <T>(work: (trx: any) => Promise<T>) => database.db.transaction().execute(work);
  /** The only connection is idle, outside any transaction. */
  const connectionIsClean = async () =>
    expect((await sql<{ open: boolean }>`SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS open`.execute(database.db)).rows[0]?.open).toBe(false);

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    await database.sql.exec(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
  });
  afterAll(async () => {
    await database?.sql.exec(`DROP TABLE IF EXISTS ${table}`);
    await database?.close();
  });

  it('commits held writes sent with a later statement, with the commit, and with a THEN_COMMIT statement', async () => {
    const seen = await inTransaction(async (trx) => {
      await held(trx, 1);
      await held(trx, 2);
      // The next statement goes after them, so it sees them.
      const rows = (await trx.selectFrom(table).select('id').orderBy('id').execute()) as { id: number }[];
      await held(trx, 3);
      return rows.map((r) => r.id);
    });
    expect(seen).toEqual([1, 2]);
    await inTransaction(async (trx) => {
      await held(trx, 4);
      await trx.insertInto(table).values({ id: 5 }).modifyEnd(sql.raw(THEN_COMMIT)).execute();
    });
    expect(await ids()).toEqual([1, 2, 3, 4, 5]);
    await connectionIsClean();
  });

  it('a held write that fails fails the next statement with its own error, and nothing commits', async () => {
    const failed = await inTransaction(async (trx) => {
      await trx.insertInto(table).values({ id: 10 }).execute();
      await held(trx, 1); // taken
      await trx.selectFrom(table).select('id').execute();
    }).catch((e: { code?: string }) => e);
    expect(failed).toMatchObject({ code: '23505' });
    const atCommit = await inTransaction(async (trx) => {
      await trx.insertInto(table).values({ id: 11 }).execute();
      await held(trx, 2); // taken, sent with the commit
    }).catch((e: { code?: string }) => e);
    expect(atCommit).toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([1, 2, 3, 4, 5]);
    await connectionIsClean();
  });

  it('a rollback drops held writes unsent: the error is the one the transaction threw', async () => {
    const thrown = await inTransaction(async (trx) => {
      await trx.insertInto(table).values({ id: 20 }).execute();
      await held(trx, 1); // would fail if it were sent
      throw new Error('changed my mind');
    }).catch((e: Error) => e);
    expect(thrown).toMatchObject({ message: 'changed my mind' });
    const onlyHeld = await inTransaction(async (trx) => {
      await held(trx, 21);
      throw new Error('before anything was sent');
    }).catch((e: Error) => e);
    expect(onlyHeld).toMatchObject({ message: 'before anything was sent' });
    expect(await ids()).toEqual([1, 2, 3, 4, 5]);
    await connectionIsClean();
  });

  it('a transaction of held writes only begins, writes and commits them together', async () => {
    await inTransaction(async (trx) => {
      await held(trx, 30);
      await held(trx, 31);
    });
    expect(await ids()).toEqual([1, 2, 3, 4, 5, 30, 31]);
    await connectionIsClean();
  });

  it('outside a transaction a WITH_NEXT write runs at once and answers its count', async () => {
    const result = await (database.db as any).insertInto(table).values({ id: 40 }).modifyEnd(sql.raw(WITH_NEXT)).executeTakeFirst();
    expect(result.numInsertedOrUpdatedRows).toBe(1n);
    expect(await ids()).toContain(40);
  });
});
