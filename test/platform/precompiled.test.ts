// A precompiled query (server/db/precompiled.ts) is Kysely's own SQL, built once per shape: each
// run answers with its own values, as the builder's query would.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TillDatabase } from '../../server/db/database.js';
import { placeholderRows, precompiled, precompiledInsert, rowsShape, rowsValues } from '../../server/db/precompiled.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

describe('precompiled queries', () => {
  let copy: TestDatabase;
  let database: TillDatabase;
  let builds = 0;
  const table = 'precompiled_things';
  const db = () => database.db as any;
  const byLabel = precompiled((on: any, value, shape) => {
    builds += 1;
    const query = on.selectFrom(table).select(['id', 'label']).where('label', '=', value(0)).orderBy('id');
    return shape === 'after' ? query.where('id', '>', value(1)) : query;
  });
  const insert = precompiled((on: any, value) =>
    on
      .insertInto(table)
      .values({ id: value(0), label: value(1) })
      .returning(['id', 'label']),
  );

  beforeAll(async () => {
    // A copy of the run's template: no initdb, and a database of this file's own.
    copy = await openTestDatabase('precompiled');
    database = copy.database;
    await sql`CREATE TABLE ${sql.table(table)} (id int PRIMARY KEY, label text NOT NULL, note text DEFAULT 'none')`.execute(database.db);
  });
  afterAll(async () => {
    await copy?.close();
  });

  it('runs each call with its own values, building each shape once', async () => {
    expect((await insert(db(), [1, 'a'])).rows).toEqual([{ id: 1, label: 'a' }]);
    expect((await insert(db(), [2, 'b'])).rows).toEqual([{ id: 2, label: 'b' }]);
    await insert(db(), [3, 'a']);
    expect((await byLabel(db(), ['a'])).rows).toEqual([
      { id: 1, label: 'a' },
      { id: 3, label: 'a' },
    ]);
    expect((await byLabel(db(), ['b'])).rows).toEqual([{ id: 2, label: 'b' }]);
    expect((await byLabel(db(), ['a', 1], 'after')).rows).toEqual([{ id: 3, label: 'a' }]);
    expect((await byLabel(db(), ['a', 3], 'after')).rows).toEqual([]);
    expect(builds).toBe(2);
  });

  it('inside a transaction, runs as part of it', async () => {
    await database.db
      .transaction()
      .execute(async (trx) => {
        await insert(trx, [4, 'c']);
        expect((await byLabel(trx, ['c'])).rows).toEqual([{ id: 4, label: 'c' }]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await byLabel(db(), ['c'])).rows).toEqual([]);
  });

  it('inserts rows by their shape: each row its own columns (the others their default), each count and set of columns one template', async () => {
    const rows = precompiled((on: any, value, shape) => {
      builds += 1;
      return on.insertInto(table).values(placeholderRows(shape, value)).returning(['id', 'label', 'note']);
    });
    const insertRows = async (values: Array<Record<string, unknown>>) => {
      const shape = rowsShape(values)!;
      return (await rows(db(), rowsValues(values, shape), shape)).rows;
    };
    const before = builds;
    expect(await insertRows([{ id: 10, label: 'x', note: undefined }])).toEqual([{ id: 10, label: 'x', note: 'none' }]);
    expect(
      await insertRows([
        { id: 11, label: 'y', note: 'first' },
        { id: 12, label: 'z' },
      ]),
    ).toEqual([
      { id: 11, label: 'y', note: 'first' },
      { id: 12, label: 'z', note: 'none' },
    ]);
    expect(await insertRows([{ id: 13, label: 'w' }])).toEqual([{ id: 13, label: 'w', note: 'none' }]);
    expect(builds - before).toBe(2);
    expect(rowsShape([{ id: 1, label: 'a', note: undefined }])).toBe('id,label');
    expect(rowsValues([{ label: 'b', id: 2 }], 'id,label')).toEqual([2, 'b']);
  });

  it('leaves to the builder the rows a template cannot take: an expression among the values, none, or more than eight', () => {
    expect(rowsShape([{ id: 1, label: sql`'computed'` }])).toBeUndefined();
    expect(rowsShape([{ id: 1, label: (eb: unknown) => eb }])).toBeUndefined();
    expect(rowsShape([])).toBeUndefined();
    expect(rowsShape(Array.from({ length: 9 }, (_, id) => ({ id })))).toBeUndefined();
    expect(rowsShape(Array.from({ length: 8 }, (_, id) => ({ id })))).toBe(Array(8).fill('id').join(';'));
  });

  it('precompiledInsert inserts rows by template, and a row holding an expression by the builder', async () => {
    const insertThings = precompiledInsert(
      (on: any) => on.insertInto(table),
      (insert: any) => insert.returning(['id', 'label', 'note']),
    );
    expect(await insertThings(db(), [{ id: 20, label: 'plain' }])).toEqual([{ id: 20, label: 'plain', note: 'none' }]);
    expect(await insertThings(db(), [{ id: 21, label: sql`upper('built')` }])).toEqual([{ id: 21, label: 'BUILT', note: 'none' }]);
    expect(
      await insertThings(
        db(),
        Array.from({ length: 9 }, (_, i) => ({ id: 30 + i, label: `n${i}` })),
      ),
    ).toHaveLength(9);
  });

  it('refuses a builder that computes with a value (it would fix one run’s value into every run)', async () => {
    const lowered = precompiled((on: any, value) =>
      on
        .selectFrom(table)
        .selectAll()
        .where('label', '=', `${value(0)}`.toLowerCase()),
    );
    await expect(lowered(db(), ['A'])).rejects.toThrow(/computed with its value #0/);
  });
});
