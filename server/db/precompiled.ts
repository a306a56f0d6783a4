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
import { type Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';
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
