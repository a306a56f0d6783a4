// A named statement's columns are described once per connection (server/db/described-once.ts):
// later runs send no Describe and get no RowDescription, and answer exactly what node-postgres's
// own query answers; a column whose type changed is read by its new type.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatementConfig } from '../../server/db/described-once.js';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { precompiled } from '../../server/db/precompiled.js';
import { randomToken } from '../../server/shared/crypto.js';

describe('a prepared statement described once per connection (PostgreSQL)', () => {
  const table = `described_${randomToken(8).toLowerCase()}`;
  let client: pg.Client;
  /** RowDescription messages the client has received. */
  let descriptions = 0;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true });
    await client.connect();
    (client as unknown as { connection: NodeJS.EventEmitter }).connection.on('rowDescription', () => (descriptions += 1));
    await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, big bigint, amount numeric(12,2), at timestamptz, doc jsonb, tags text[], label text)`);
    await client.query(
      `INSERT INTO ${table} VALUES (1, 9007199254740993, 12.50, '2026-11-29T03:00:00Z', '{"a":[1,2]}', '{x,y}', 'one'), (2, NULL, NULL, NULL, NULL, NULL, NULL)`,
    );
  });
  afterAll(async () => {
    await client?.query(`DROP TABLE IF EXISTS ${table}`);
    await client?.end();
  });

  const byId = (id: number) => runStatementConfig(client, { name: `${table}_by_id`, text: `SELECT * FROM ${table} WHERE id = $1`, values: [id] });
  const own = async (id: number) => (await client.query(`SELECT * FROM ${table} WHERE id = $1`, [id])).rows;

  it('describes on the first run only, and each run answers the rows pg answers', async () => {
    const before = descriptions;
    const first = await byId(1);
    expect(descriptions).toBe(before + 1);
    const again = [await byId(1), await byId(2), await byId(3)];
    expect(descriptions).toBe(before + 1);
    expect(first.rows).toEqual(await own(1));
    expect(again.map((r) => r.rows)).toEqual([await own(1), await own(2), []]);
    expect(again[0]?.rows[0]).toMatchObject({ big: '9007199254740993', doc: { a: [1, 2] }, tags: ['x', 'y'], at: new Date('2026-11-29T03:00:00Z') });
  });

  it('runs sent together (pipelined) read their own rows without Describe', async () => {
    const before = descriptions;
    const runs = await Promise.all([1, 2, 1, 3, 2].map(byId));
    expect(descriptions).toBe(before);
    expect(runs.map((r) => (r.rows[0] as { id?: number } | undefined)?.id)).toEqual([1, 2, 1, undefined, 2]);
  });

  it('a statement without rows answers its command and count on every run', async () => {
    const touch = (id: number) => runStatementConfig(client, { name: `${table}_touch`, text: `UPDATE ${table} SET label = label WHERE id = $1`, values: [id] });
    expect(await touch(1)).toMatchObject({ command: 'UPDATE', rowCount: 1, rows: [] });
    expect(await touch(1)).toMatchObject({ command: 'UPDATE', rowCount: 1, rows: [] });
    expect(await touch(9)).toMatchObject({ command: 'UPDATE', rowCount: 0, rows: [] });
  });

  it('a value that cannot be sent fails its run only', async () => {
    const unsendable = {
      toPostgres: () => {
        throw new Error('no value');
      },
    };
    await expect(
      runStatementConfig(client, { name: `${table}_by_label`, text: `SELECT id FROM ${table} WHERE label = $1`, values: ['one'] }),
    ).resolves.toMatchObject({ rows: [{ id: 1 }] });
    await expect(
      runStatementConfig(client, { name: `${table}_by_label`, text: `SELECT id FROM ${table} WHERE label = $1`, values: [unsendable] }),
    ).rejects.toThrow('no value');
    expect(await own(1)).toHaveLength(1);
  });
});

describe('a described statement after its column changed type (PostgreSQL, through the pool)', () => {
  let database: TillDatabase;
  const table = `retyped_${randomToken(8).toLowerCase()}`;
  const byIdQuery = precompiled((on: any, value) => on.selectFrom(table).selectAll().where('id', '=', value(0)));
  const byId = async (id: number) => (await byIdQuery(database.db, [id])).rows;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    await database.sql.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, size bigint); INSERT INTO ${table} VALUES (1, 42);`);
  });
  afterAll(async () => {
    await database?.sql.exec(`DROP TABLE IF EXISTS ${table}`);
    await database?.close();
  });

  it('is read by the new type: bigint (a string), then int, then jsonb', async () => {
    for (let i = 0; i < 3; i++) expect(await byId(1)).toEqual([{ id: 1, size: '42' }]);
    await database.sql.exec(`ALTER TABLE ${table} ALTER COLUMN size TYPE int`);
    expect(await byId(1)).toEqual([{ id: 1, size: 42 }]);
    expect(await byId(1)).toEqual([{ id: 1, size: 42 }]);
    await database.sql.exec(`ALTER TABLE ${table} ALTER COLUMN size TYPE jsonb USING to_jsonb(size)`);
    expect(await byId(1)).toEqual([{ id: 1, size: 42 }]);
    await database.sql.exec(`UPDATE ${table} SET size = '{"n":42}'`);
    expect(await byId(1)).toEqual([{ id: 1, size: { n: 42 } }]);
  });
});
