// On a PostgreSQL server, a transaction's `begin` travels with its first statement and `commit`
// with a statement marked THEN_COMMIT (server/db/transaction-client.ts). Whatever fails where, the
// transaction commits all or nothing, and the connection is clean for the next user. One
// connection in the pool, so every step reuses the connection the last one left behind.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { SHARED_WRITE } from '../../server/db/pipelined-pool.js';
import { THEN_COMMIT } from '../../server/db/transaction-client.js';
import { randomToken } from '../../server/shared/crypto.js';

describe('pipelined transactions (PostgreSQL)', () => {
  let database: TillDatabase;
  const parents = `pipelined_parents_${randomToken(8).toLowerCase()}`;
  const children = `pipelined_children_${randomToken(8).toLowerCase()}`;
  const count = async (table: string) => Number((await database.sql.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  /** The only connection is idle, outside any transaction (it would refuse this in an aborted one). */
  const connectionIsClean = async () => {
    const row = (await sql<{ open: boolean }>`SELECT now() <> clock_timestamp() AND pg_current_xact_id_if_assigned() IS NOT NULL AS open`.execute(database.db))
      .rows[0];
    expect(row?.open).toBe(false);
  };
  const marked = (on: any, id: number) => on.insertInto(parents).values({ id }).modifyEnd(sql.raw(THEN_COMMIT));
  /** What a transaction that fails throws (its error, with `code` and `message`). */
  const failure = (work: (trx: any) => Promise<void>) =>
    database.db
      .transaction()
      .execute(work)
      .then(
        () => ({}) as Error & { code?: string },
        (e: Error & { code?: string }) => e,
      );

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    await database.sql.exec(`
      CREATE TABLE ${parents} (id int PRIMARY KEY);
      CREATE TABLE ${children} (id int PRIMARY KEY, parent int NOT NULL REFERENCES ${parents} (id) DEFERRABLE INITIALLY DEFERRED);`);
  });
  afterAll(async () => {
    await database?.sql.exec(`DROP TABLE IF EXISTS ${children}; DROP TABLE IF EXISTS ${parents};`);
    await database?.close();
  });

  it('commits every statement, with or without a marked last one', async () => {
    await database.db.transaction().execute(async (trx: any) => {
      await trx.insertInto(parents).values({ id: 1 }).execute();
      await trx.insertInto(children).values({ id: 1, parent: 1 }).execute();
    });
    await database.db.transaction().execute(async (trx: any) => {
      await trx.insertInto(children).values({ id: 2, parent: 1 }).execute();
      await marked(trx, 2).execute();
    });
    expect(await count(parents)).toBe(2);
    expect(await count(children)).toBe(2);
    await connectionIsClean();
  });

  it('a failing first statement (sent with begin) rolls the transaction back', async () => {
    const failed = await failure(async (trx: any) => {
      await trx.insertInto(parents).values({ id: 1 }).execute(); // a duplicate
      await trx.insertInto(parents).values({ id: 10 }).execute();
    });
    expect(failed.code).toBe('23505');
    expect(await count(parents)).toBe(2);
    await connectionIsClean();
  });

  it('a failing marked statement commits nothing of the transaction', async () => {
    const failed = await failure(async (trx: any) => {
      await trx.insertInto(parents).values({ id: 11 }).execute();
      await marked(trx, 1).execute(); // a duplicate, sent with the commit
    });
    expect(failed.code).toBe('23505');
    expect(await count(parents)).toBe(2);
    await connectionIsClean();
  });

  it('a commit the server refuses fails the marked statement with its error, and nothing is committed', async () => {
    const failed = await failure(async (trx: any) => {
      // A child of a missing parent: the deferred foreign key is checked at commit.
      await trx.insertInto(children).values({ id: 12, parent: 999 }).execute();
      await marked(trx, 12).execute();
    });
    expect(failed.code).toBe('23503');
    expect(await count(parents)).toBe(2);
    expect(await count(children)).toBe(2);
    await connectionIsClean();
  });

  it('a transaction that runs no statement, or throws before its first, leaves the connection clean', async () => {
    await database.db.transaction().execute(async () => undefined);
    const thrown = (
      await failure(async () => {
        throw new Error('before any statement');
      })
    ).message;
    expect(thrown).toBe('before any statement');
    await connectionIsClean();
  });

  it('a statement after the marked one is refused (the transaction has committed)', async () => {
    const failed = (
      await failure(async (trx: any) => {
        await marked(trx, 30).execute();
        await trx.insertInto(parents).values({ id: 31 }).execute();
      })
    ).message;
    expect(failed).toMatch(/must be the last/);
    expect(Number((await database.sql.query(`SELECT count(*) AS n FROM ${parents} WHERE id IN (30, 31)`)).rows[0].n)).toBe(1);
    await connectionIsClean();
  });

  it('a marked statement outside a transaction runs as itself (no commit is sent)', async () => {
    await marked(database.db, 20).execute();
    expect(await count(parents)).toBe(4);
    await connectionIsClean();
  });
});

describe('shared connections for single statements (PostgreSQL)', () => {
  let database: TillDatabase;
  const table = `pipelined_shared_${randomToken(8).toLowerCase()}`;
  const backendPid = async () => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(database.db)).rows[0]!.pid;

  beforeAll(async () => {
    // Eight connections: two of them carry the plain reads.
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 8 });
    await database.sql.exec(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
  });
  afterAll(async () => {
    await database?.sql.exec(`DROP TABLE IF EXISTS ${table}`);
    await database?.close();
  });

  it('answers many statements sent at once each with its own result; one failing fails alone', async () => {
    const answers = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        i === 57 ? sql`SELECT 1 / 0`.execute(database.db) : sql<{ n: number }>`SELECT ${i}::int AS n`.execute(database.db).then((r) => r.rows[0]!.n),
      ),
    );
    expect(answers.filter((a) => a.status === 'rejected').map((a) => ((a as PromiseRejectedResult).reason as { code?: string }).code)).toEqual(['22012']);
    answers.forEach((a, i) => i !== 57 && expect(a).toEqual({ status: 'fulfilled', value: i }));
  });

  it('a transaction has a connection of its own: its uncommitted rows are not seen by single statements meanwhile', async () => {
    let seenDuring = -1;
    await database.db.transaction().execute(async (trx: any) => {
      await trx.insertInto(table).values({ id: 1 }).execute();
      seenDuring = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(database.db)).rows[0]!.n);
    });
    expect(seenDuring).toBe(0);
    expect(Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(database.db)).rows[0]!.n)).toBe(1);
  });

  it('a session lock taken through db.connection() is released on that same connection (as the migrator takes its lock)', async () => {
    // Reads from elsewhere keep the shared connections busy meanwhile, so they would take turns.
    const busy = Array.from({ length: 100 }, () => sql`SELECT pg_sleep_for('0 seconds'::interval), 1`.execute(database.db).catch(() => undefined));
    const reads = Array.from({ length: 100 }, (_, i) => sql`SELECT ${i}::int`.execute(database.db));
    const unlocked = await database.db.connection().execute(async (connection) => {
      await sql`SELECT pg_advisory_lock(4242)`.execute(connection);
      await sql`SELECT count(*) FROM ${sql.table(table)}`.execute(connection);
      return (await sql<{ unlocked: boolean }>`SELECT pg_advisory_unlock(4242) AS unlocked`.execute(connection)).rows[0]!.unlocked;
    });
    await Promise.all([...busy, ...reads]);
    expect(unlocked).toBe(true);
    const held = await database.sql.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242");
    expect(Number(held.rows[0].n)).toBe(0);
  });

  it('a SHARED_WRITE runs on a shared connection outside a transaction, and inside one as part of it', async () => {
    const readers = new Set((await Promise.all(Array.from({ length: 40 }, () => backendPid()))).map(Number));
    const written = await sql<{
      pid: number;
    }>`INSERT INTO ${sql.table(table)} (id) VALUES (100) RETURNING pg_backend_pid() AS pid ${sql.raw(SHARED_WRITE)}`.execute(database.db);
    expect(readers.has(Number(written.rows[0]!.pid))).toBe(true);
    const rolledBack = await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`INSERT INTO ${sql.table(table)} (id) VALUES (101) ${sql.raw(SHARED_WRITE)}`.execute(trx);
        throw new Error('roll back');
      })
      .catch((e: Error) => e.message);
    expect(rolledBack).toBe('roll back');
    expect(Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE id IN (100, 101)`.execute(database.db)).rows[0]!.n)).toBe(1);
  });

  it('a shared connection that is lost is replaced: the statements after it succeed on another', async () => {
    const lost = await backendPid();
    await database.sql.query('SELECT pg_terminate_backend($1)', [lost]);
    // Statements sent while the loss is noticed may fail (a request answers 503); later ones run.
    await expect.poll(async () => backendPid().catch(() => lost), { timeout: 10_000, interval: 50 }).not.toBe(lost);
    expect(await backendPid()).not.toBe(lost);
  });
});
