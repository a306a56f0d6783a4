// A statement with values runs as a named prepared statement (server/db/prepared-statements.ts):
// its answers are the same, a schema change that alters its result's columns is survived, and an
// ON CONFLICT outside a precompiled query is not prepared.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { precompiled } from '../../server/db/precompiled.js';
import { randomToken } from '../../server/shared/crypto.js';

describe('prepared statements (PostgreSQL)', () => {
  let database: TillDatabase;
  const table = `prepared_${randomToken(8).toLowerCase()}`;
  /** The statements prepared on the pool's only connection. */
  const prepared = async () => (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(database.db)).rows;
  const byIdQuery = precompiled((on: any, value) => on.selectFrom(table).selectAll().where('id', '=', value(0)));
  const byId = async (id: number, db: any = database.db) => (await byIdQuery(db, [id])).rows;

  beforeAll(async () => {
    // One connection, so the statements and pg_prepared_statements see the same session.
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    await database.sql.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, label text NOT NULL); INSERT INTO ${table} VALUES (1, 'one'), (2, 'two');`);
  });
  afterAll(async () => {
    await database?.sql.exec(`DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS ${table}_owners;`);
    await database?.close();
  });

  it('prepares a precompiled query once, and answers each run with its own values', async () => {
    const text = `select * from "${table}" where "id" = $1`;
    expect(await byId(1)).toEqual([{ id: 1, label: 'one' }]);
    expect(await byId(2)).toEqual([{ id: 2, label: 'two' }]);
    expect(await byId(1)).toEqual([{ id: 1, label: 'one' }]);
    expect(await byId(3)).toEqual([]);
    expect((await prepared()).filter((p) => p.statement === text)).toHaveLength(1);
  });

  it('prepares a statement Kysely builds anew each time too, once, and answers each run with its own values', async () => {
    const labelOf = async (id: number) => (await (database.db as any).selectFrom(table).select('label').where('id', '=', id).execute()) as unknown[];
    for (let i = 0; i < 7; i++) expect(await labelOf(1 + (i % 2))).toEqual([{ label: i % 2 ? 'two' : 'one' }]);
    expect(await labelOf(9)).toEqual([]);
    expect((await prepared()).filter((p) => p.statement === `select "label" from "${table}" where "id" = $1`)).toHaveLength(1);
  });

  it('prepares no ON CONFLICT outside a precompiled query: one on a partial unique index, with its predicate a parameter, works past five runs', async () => {
    const owners = `${table}_owners`;
    await database.sql.exec(`CREATE TABLE ${owners} (merchant int NOT NULL, owner boolean NOT NULL); CREATE UNIQUE INDEX ON ${owners} (merchant) WHERE owner;`);
    // A prepared statement gets a generic plan after five runs, and a generic plan finds no arbiter index for `WHERE owner = $2`.
    for (let i = 0; i < 8; i++)
      await (database.db as any)
        .insertInto(owners)
        .values({ merchant: i % 2, owner: true })
        .onConflict((oc: any) => oc.column('merchant').where('owner', '=', true).doNothing())
        .execute();
    expect(Number((await database.sql.query(`SELECT count(*) AS n FROM ${owners}`)).rows[0].n)).toBe(2);
    expect((await prepared()).filter((p) => p.statement.includes(owners))).toEqual([]);
  });

  it('a statement without values is never prepared (it may hold several statements)', async () => {
    const before = (await prepared()).length;
    const labels = precompiled((on: any) => on.selectFrom(table).select('label'));
    for (let i = 0; i < 3; i++) await labels(database.db, []);
    expect((await prepared()).length).toBe(before);
  });

  it('after a schema change alters its columns, a prepared statement outside a transaction answers with the new columns', async () => {
    await byId(1);
    await byId(1);
    await database.sql.exec(`ALTER TABLE ${table} ADD COLUMN note text`);
    expect(await byId(1)).toEqual([{ id: 1, label: 'one', note: null }]);
    expect(await byId(2)).toEqual([{ id: 2, label: 'two', note: null }]);
  });

  it('inside a transaction, that change fails the transaction once; the next one is prepared anew', async () => {
    const inTransaction = () => database.db.transaction().execute((trx) => byId(1, trx));
    await inTransaction();
    await inTransaction();
    await database.sql.exec(`ALTER TABLE ${table} ADD COLUMN extra int`);
    await expect(inTransaction()).rejects.toMatchObject({ code: '0A000' });
    expect(await inTransaction()).toEqual([{ id: 1, label: 'one', note: null, extra: null }]);
  });
});
