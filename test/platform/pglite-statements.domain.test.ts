// PGlite's statements in one exchange, prepared once (server/db/pglite-statements.ts): they answer
// what PGlite's own `query` answers, keep working after a schema change and past the point where
// PostgreSQL would switch a prepared statement to a generic plan, and report errors as PGlite does.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgliteStatements, preparedStatements } from '../../server/db/pglite-statements.js';

let pglite: PGlite;
let statements: PgliteStatements;

beforeAll(async () => {
  pglite = await PGlite.create();
  statements = preparedStatements(pglite);
  await pglite.exec(`
    CREATE TABLE things (id serial PRIMARY KEY, name text, amount numeric(12,2), at timestamptz, tags text[], meta jsonb, big bigint, ok boolean, owner int, status text NOT NULL DEFAULT 'live');
    CREATE UNIQUE INDEX things_live_name ON things (owner, name) WHERE status = 'live';`);
}, 60_000);
afterAll(() => pglite.close());

describe('prepared PGlite statements', () => {
  it('answer rows, fields and affected rows exactly as PGlite’s query does, for every kind of value', async () => {
    const insert = 'INSERT INTO things (name, amount, at, tags, meta, big, ok, owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *';
    const values = ['tea', '12.50', new Date('2026-11-27T10:00:00Z'), ['a', 'b"c'], { deep: [1, null] }, '9007199254740993', true, 7];
    const ours = await statements.query(insert, values);
    const theirs = await pglite.query(insert, ['tea too', ...values.slice(1)]);
    expect(ours.rows).toEqual([{ ...(theirs.rows[0] as object), id: (ours.rows[0] as { id: number }).id, name: 'tea' }]);
    expect(ours.affectedRows).toBe(1);
    expect(ours.fields).toEqual(theirs.fields);
    const select = 'SELECT * FROM things WHERE owner = $1 ORDER BY id';
    expect((await statements.query(select, [7])).rows).toEqual((await pglite.query(select, [7])).rows);
    // Run again (the columns now those described when it was prepared), alone and in a batch: the same answer.
    const again = await statements.query(select, [7]);
    const [batched] = await statements.queryMany([{ text: select, values: [7] }]);
    for (const answer of [again, batched!.result!]) {
      expect(answer.rows).toEqual((await pglite.query(select, [7])).rows);
      expect(answer.fields).toEqual((await pglite.query(select, [7])).fields);
    }
    expect((await statements.query('UPDATE things SET ok = $1 WHERE owner = $2', [false, 7])).affectedRows).toBe(2);
    expect((await statements.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 2 }]);
  });

  it('match an ON CONFLICT to a partial unique index on every run, not only the first five', async () => {
    // The index's predicate is proven from the statement's value: a generic plan has no value to prove it with.
    const upsert = 'INSERT INTO things (owner, name) VALUES ($1, $2) ON CONFLICT (owner, name) WHERE status = $3 DO NOTHING RETURNING id';
    for (let run = 0; run < 12; run++) expect((await statements.query(upsert, [8, `n${run % 3}`, 'live'])).rows).toHaveLength(run < 3 ? 1 : 0);
  });

  it('prepare a statement again when a schema change alters its columns', async () => {
    const select = 'SELECT * FROM things WHERE owner = $1';
    expect(Object.keys((await statements.query(select, [8])).rows[0]!)).not.toContain('note');
    await pglite.exec('ALTER TABLE things ADD COLUMN note text');
    expect(Object.keys((await statements.query(select, [8])).rows[0]!)).toContain('note');
  });

  it('read a column by its new type once a schema change altered it, alone and in a batch', async () => {
    const select = 'SELECT big FROM things WHERE owner = $1 ORDER BY id LIMIT 1';
    expect((await statements.query(select, [7])).rows).toEqual([{ big: 9007199254740993n }]);
    await pglite.exec('ALTER TABLE things ALTER COLUMN big TYPE text');
    expect((await statements.query(select, [7])).rows).toEqual([{ big: '9007199254740993' }]);
    await pglite.exec('ALTER TABLE things ALTER COLUMN big TYPE numeric USING big::numeric');
    const [answer] = await statements.queryMany([{ text: select, values: [7] }]);
    expect(answer!.result!.fields).toEqual([{ name: 'big', dataTypeID: 1700 }]);
    expect(answer!.result!.rows).toEqual([{ big: '9007199254740993' }]);
  });

  it('throw PostgreSQL’s error with its code, and go on answering', async () => {
    await expect(statements.query('INSERT INTO things (id, name) VALUES ($1, $2)', [1, 'again'])).rejects.toMatchObject({ code: '23505' });
    await expect(statements.query('SELECT nope FROM things WHERE id = $1', [1])).rejects.toMatchObject({ code: '42703' });
    expect((await statements.query('SELECT name FROM things WHERE id = $1', [1])).rows).toEqual([{ name: 'tea' }]);
  });

  it('answer statements sent in one exchange each on its own: one failing as it runs fails alone, the ones after it are answered', async () => {
    const divide = 'SELECT 10 / $1::int AS n';
    const answers = await statements.queryMany([1, 0, 2, 0, 5].map((d) => ({ text: divide, values: [d] })));
    expect(answers.map((a) => (a.error ? (a.error as { code?: string }).code : a.result!.rows))).toEqual([
      [{ n: 10 }],
      '22012',
      [{ n: 5 }],
      '22012',
      [{ n: 2 }],
    ]);
    const unknown = await statements.queryMany([
      { text: 'SELECT nope FROM things WHERE id = $1', values: [1] },
      { text: divide, values: [10] },
    ]);
    expect(unknown[0]!.error).toMatchObject({ code: '42703' });
    expect(unknown[1]!.result!.rows).toEqual([{ n: 1 }]);
  });

  it('keep working past the most statements it holds prepared', async () => {
    for (let i = 0; i < 520; i++) expect((await statements.query(`SELECT $1::int + ${i} AS n`, [1])).rows).toEqual([{ n: 1 + i }]);
    expect((await statements.query('SELECT $1::int + 0 AS n', [2])).rows).toEqual([{ n: 2 }]);
  });
});

describe('prepared PGlite statements, past the most they hold (2 here)', () => {
  let engine: PGlite;
  let small: PgliteStatements;
  const text = (k: string) => `SELECT $1::int AS n, '${k}' AS k`;
  const held = async () => (await engine.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) => r.statement);

  beforeAll(async () => {
    engine = await PGlite.create();
    small = preparedStatements(engine, 2);
  }, 60_000);
  afterAll(() => engine.close());

  it('drop the least recently used statement, not the first prepared', async () => {
    for (const k of ['a', 'b', 'a', 'c']) await small.query(text(k), [1]);
    // The next exchange closes what fell out: b, the least recently used; a was used after it.
    expect((await small.queryMany([{ text: text('a'), values: [2] }]))[0]!.result!.rows).toEqual([{ n: 2, k: 'a' }]);
    expect(await held()).toEqual(expect.arrayContaining([text('a'), text('c')]));
    expect(await held()).not.toContain(text('b'));
  });

  it('answer every statement of a batch whose preparing makes one of it fall out of the cache', async () => {
    // c and a are held; d, e and f are prepared for the batch, so c and a fall out while it is prepared.
    const batch = ['c', 'a', 'd', 'e', 'f'].map((k, i) => ({ text: text(k), values: [i] }));
    const answers = await small.queryMany(batch);
    expect(answers.map((a) => a.error)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(answers.map((a) => a.result!.rows[0])).toEqual(['c', 'a', 'd', 'e', 'f'].map((k, i) => ({ n: i, k })));
    // They are closed by a later exchange, and prepared again when they run again.
    expect((await small.query(text('c'), [9])).rows).toEqual([{ n: 9, k: 'c' }]);
    expect((await small.queryMany([{ text: text('a'), values: [8] }]))[0]!.result!.rows).toEqual([{ n: 8, k: 'a' }]);
  });

  it('prepare a statement again when the engine no longer holds it', async () => {
    await small.query(text('g'), [1]);
    await engine.exec('DEALLOCATE ALL');
    expect((await small.query(text('g'), [2])).rows).toEqual([{ n: 2, k: 'g' }]);
    expect((await small.queryMany([{ text: text('g'), values: [3] }]))[0]!.result!.rows).toEqual([{ n: 3, k: 'g' }]);
  });
});
