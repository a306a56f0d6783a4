// Queries that Kysely builds and compiles once, then runs with new values.
//
// Kysely builds a query's operation tree, freezes it and compiles it to SQL on every call: for the
// 40-column insert of a checkout session that was the largest share of its CPU in a profile of
// the create-session request. A statement on every request's path is built here once per shape,
// with placeholders where its values go, and each run only puts its values in their places. The
// SQL is Kysely's own, so it cannot drift from the builder's.
//
// On a PostgreSQL server its statement is prepared, once per connection, as every statement with
// values is (prepared-statements.ts), and one with an `ON CONFLICT` too: so a precompiled query's
// conflict target must be a full unique key, never an `ON CONFLICT … WHERE` on a partial index,
// whose arbiter a generic plan cannot find.
import { type Compilable, CompiledQuery, type InsertQueryBuilder, type InsertResult } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';
import { markPreparable } from './prepared-statements.js';

/** Stands for the value at `index` of a run, while the query is built. */
class Placeholder {
  constructor(readonly index: number) {}

  // A placeholder is only put where a value goes; computing with one is a mistake in a builder,
  // which would freeze the result into every run's SQL. Refused, so that a test finds it.
  [Symbol.toPrimitive](): never {
    throw new Error(`A precompiled query computed with its value #${this.index}; put values only where a value goes (derive them before the run).`);
  }
}

/** A value of the run, at its place in the query being built. */
export type Value = (index: number) => never;

const value: Value = (index) => new Placeholder(index) as never;

interface Template {
  sql: string;
  /** Each parameter of the SQL: a run's value (by index), or one fixed by the shape. */
  parameters: ReadonlyArray<unknown>;
}

/**
 * A query built by `build` once per `shape` and run with each call's `values` in place of
 * `value(i)`. `shape` names whatever else changes the SQL (which columns are set, say); a query
 * with one shape leaves it out. Answers the rows (and the affected count, for a write).
 */
export function precompiled<Row>(build: (db: Db, value: Value, shape: string) => Compilable<Row>) {
  const templates = new Map<string, Template>();
  return async (db: Db, values: readonly unknown[], shape = ''): Promise<{ rows: Row[]; numAffectedRows?: bigint }> => {
    let template = templates.get(shape);
    if (!template) {
      const compiled = build(db, value, shape).compile();
      template = { sql: compiled.sql, parameters: compiled.parameters };
      templates.set(shape, template);
      markPreparable(template.sql);
    }
    const parameters = template.parameters.map((p) => (p instanceof Placeholder ? values[p.index] : p));
    return db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
  };
}

/** A value Kysely builds into the SQL itself (a subquery, a raw fragment, a callback): never a template's value. */
const isExpression = (v: unknown) =>
  typeof v === 'function' || (typeof v === 'object' && v !== null && typeof (v as { toOperationNode?: unknown }).toOperationNode === 'function');

/** Rows at most in a precompiled multi-row insert (each count is a shape, and a prepared statement). */
const MAX_ROWS = 8;

/**
 * The shape of an insert of `rows`: each row's columns (those not undefined), in order. Undefined
 * when the rows cannot share a template: more than MAX_ROWS of them, or a value that is an
 * expression. Then the insert is built as any query is.
 */
export function rowsShape(rows: readonly object[]): string | undefined {
  if (rows.length === 0 || rows.length > MAX_ROWS) return undefined;
  let shape = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Record<string, unknown>;
    let columns = '';
    for (const column in row) {
      const v = row[column];
      if (v === undefined) continue;
      if (isExpression(v)) return undefined;
      columns = columns === '' ? column : `${columns},${column}`;
    }
    shape = i === 0 ? columns : `${shape};${columns}`;
  }
  return shape;
}

const columnLists = new Map<string, string[][]>();
/** A shape's rows, each its column names. */
function columnsOf(shape: string): string[][] {
  let rows = columnLists.get(shape);
  if (!rows) columnLists.set(shape, (rows = shape.split(';').map((row) => (row === '' ? [] : row.split(',')))));
  return rows;
}

/** The rows of a shape with a placeholder for each value, numbered in order. */
export function placeholderRows(shape: string, value: Value): Array<Record<string, never>> {
  let next = 0;
  return columnsOf(shape).map((columns) => Object.fromEntries(columns.map((column) => [column, value(next++)])));
}

/** A run's values of `rows`, in their shape's order. */
export function rowsValues(rows: readonly object[], shape: string): unknown[] {
  const values: unknown[] = [];
  const columnsOfRows = columnsOf(shape);
  for (let i = 0; i < columnsOfRows.length; i++) {
    const row = rows[i] as Record<string, unknown>;
    for (const column of columnsOfRows[i]!) values.push(row[column]);
  }
  return values;
}

/** A query that both compiles and runs (a Kysely builder). */
type Runnable<Row> = Compilable<Row> & { execute(): Promise<Row[]> };

/**
 * An insert of rows (`into` names the table: the repository's own), precompiled per shape
 * (rowsShape); `finish` adds what follows the values (a returning clause, WITH_NEXT). Rows a
 * template cannot take are inserted by the builder, as any query is. Answers the rows the insert
 * returns.
 */
export function precompiledInsert<T extends keyof Database & string, Row>(
  into: (db: Db) => InsertQueryBuilder<Database, T, InsertResult>,
  finish: (insert: InsertQueryBuilder<Database, T, InsertResult>) => Runnable<Row>,
) {
  const template = precompiled((db, value, shape) => finish(into(db).values(placeholderRows(shape, value) as never)));
  return async (db: Db, rows: readonly object[]): Promise<Row[]> => {
    const shape = rowsShape(rows);
    if (shape === undefined) return finish(into(db).values(rows as never)).execute();
    return (await template(db, rowsValues(rows, shape), shape)).rows;
  };
}
