// Kysely on Till's PGlite session (server/db/pglite-dialect.ts): plain reads that wait for the
// session go together in one exchange, each answered on its own; a transaction holds the session
// from begin to commit, so no read runs inside it or sees what it has not committed.
import { PGlite } from '@electric-sql/pglite';
import { type Generated, Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.js';
import { PgliteSessionDialect } from '../../server/db/pglite-dialect.js';
import { preparedStatements } from '../../server/db/pglite-statements.js';

interface Tables {
  things: { id: Generated<number>; name: string; owner: number };
}

let pglite: PGlite;
let db: Kysely<Tables>;
/** Exchanges with the engine so far (PGlite's execProtocol, counted and run as it is). */
let exchanges = 0;

beforeAll(async () => {
  pglite = await PGlite.create();
  const execProtocol = pglite.execProtocol.bind(pglite);
  pglite.execProtocol = (...args: Parameters<PGlite['execProtocol']>) => ((exchanges += 1), execProtocol(...args));
  db = new Kysely<Tables>({ dialect: new PgliteSessionDialect(preparedStatements(pglite)) });
  await pglite.exec(`CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL, owner int NOT NULL);
    INSERT INTO things (name, owner) SELECT 'thing ' || n, n % 5 FROM generate_series(1, 40) n;`);
}, 60_000);
afterAll(() => pglite.close());

const byOwner = (owner: number) => db.selectFrom('things').select(['id', 'owner']).where('owner', '=', owner).orderBy('id').execute();
const count = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM things`.execute(db)).rows[0]!.n);
const settled = <T>(promise: Promise<T>) => {
  let done = false;
  void promise.finally(() => (done = true)).catch(() => undefined);
  return () => done;
};

describe("Till's PGlite session", () => {
  it('answers reads sent at once each with its own rows, in one exchange', async () => {
    await byOwner(0); // prepared
    const before = exchanges;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => byOwner(i % 5)));
    expect(exchanges - before).toBe(1);
    answers.forEach((rows, i) => {
      expect(rows).toHaveLength(8);
      expect(rows.every((r) => r.owner === i % 5)).toBe(true);
    });
  });

  it('fails a read that fails alone: the others of its exchange are answered', async () => {
    const bad = sql`SELECT nope FROM things WHERE id = ${1}`.execute(db);
    const [first, failed, last] = await Promise.allSettled([byOwner(1), bad, byOwner(2)]);
    expect(failed).toMatchObject({ status: 'rejected', reason: { code: '42703' } });
    expect(first).toMatchObject({ status: 'fulfilled', value: expect.arrayContaining([expect.objectContaining({ owner: 1 })]) });
    expect(last).toMatchObject({ status: 'fulfilled', value: expect.arrayContaining([expect.objectContaining({ owner: 2 })]) });
  });

  it('runs no read inside a transaction: a read waits for its end and never sees a row it rolled back', async () => {
    const before = await count();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const failing = db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ name: 'uncommitted', owner: 9 }).execute();
      await gate;
      throw new Error('rolled back');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const read = count();
    const readDone = settled(read);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readDone()).toBe(false);
    finish();
    await expect(failing).rejects.toThrow('rolled back');
    expect(await read).toBe(before);
  });

  it('answers a read after a transaction with what the transaction committed', async () => {
    const before = await count();
    const committed = db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ name: 'committed', owner: 9 }).execute();
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await count()).toBe(before + 1);
    await committed;
  });

  it('runs statements sent at once inside a transaction as part of it', async () => {
    const rows = await db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ name: 'inside', owner: 11 }).execute();
      return Promise.all([1, 2, 3].map(() => trx.selectFrom('things').select('name').where('owner', '=', 11).execute()));
    });
    expect(rows).toEqual([[{ name: 'inside' }], [{ name: 'inside' }], [{ name: 'inside' }]]);
  });

  it('prepares a read again when a schema change alters its columns, in a batch too', async () => {
    const all = () => sql<Record<string, unknown>>`SELECT * FROM things WHERE owner = ${3} ORDER BY id LIMIT 1`.execute(db);
    expect(Object.keys((await all()).rows[0]!)).not.toContain('note');
    await sql`ALTER TABLE things ADD COLUMN note text`.execute(db);
    const answers = await Promise.all([all(), all(), byOwner(3)]);
    for (const answer of answers.slice(0, 2)) expect(Object.keys((answer as { rows: object[] }).rows[0]!)).toContain('note');
  });

  it('runs the plain SQL runner (the job queue’s, the rate limiter’s) in a turn of its own, never inside a transaction', async () => {
    const database = await openDatabase({});
    try {
      await database.sql.exec('CREATE TABLE jobs (id serial PRIMARY KEY, state text NOT NULL)');
      let finish!: () => void;
      const gate = new Promise<void>((resolve) => (finish = resolve));
      const failing = database.db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        await gate;
        throw new Error('rolled back');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const insert = database.sql.query('INSERT INTO jobs (state) VALUES ($1) RETURNING id', ['created']);
      const inserted = settled(insert);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(inserted()).toBe(false);
      finish();
      await expect(failing).rejects.toThrow('rolled back');
      await insert;
      // Not rolled back with the transaction: it ran after it, on its own.
      expect((await database.sql.query('SELECT state FROM jobs', [])).rows).toEqual([{ state: 'created' }]);
    } finally {
      await database.close();
    }
  });
});
