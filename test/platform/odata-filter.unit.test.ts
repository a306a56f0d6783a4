import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../server/odata/index.js';
import { AppError } from '../../server/shared/errors.js';
import { compiler, orders } from './odata-fixture.js';

const compile = (query: Record<string, unknown>) => compileQuery(orders, query).apply(compiler.selectFrom('orders').selectAll()).compile();
const where = (filter: string) => {
  const c = compile({ $filter: filter });
  return { sql: /where (.*) order by/.exec(c.sql)![1], parameters: c.parameters.slice(0, -2) };
};

describe('$filter → SQL', () => {
  it.each([
    ['id eq 5', '("id" = $1)', [5]],
    ['id ne 5', '("id" IS DISTINCT FROM $1)', [5]],
    ['id gt 5', '("id" > $1)', [5]],
    ['id ge 5', '("id" >= $1)', [5]],
    ['id lt 5', '("id" < $1)', [5]],
    ['id le 5', '("id" <= $1)', [5]],
    ['5 lt id', '("id" > $1)', [5]],
    ["name eq 'O''Brien'", '(coalesce("name" = $1, false))', ["O'Brien"]],
    ['name eq null', '("name" IS NULL)', []],
    ['name ne null', '("name" IS NOT NULL)', []],
    ['amount gt 10.005', '("amount" > cast($1 as numeric))', ['10.005']],
    ['amount eq 3', '("amount" = cast($1 as numeric))', ['3']],
    ['active eq true', '(coalesce("active" = $1, false))', [true]],
    ['active', '(coalesce("active", false))', []],
    ["status eq 'Paid'", '("status" = $1)', ['paid']],
    ['createdAt ge 2024-01-31T10:00:00Z', '("created_at" >= cast($1 as timestamptz))', ['2024-01-31T10:00:00Z']],
    ['ref eq 3F2504E0-4F89-11D3-9A0C-0305E82C3301', '(coalesce("ref" = cast($1 as uuid), false))', ['3f2504e0-4f89-11d3-9a0c-0305e82c3301']],
    ['id eq 1 and id eq 2', '(("id" = $1 AND "id" = $2))', [1, 2]],
    ['id eq 1 or id eq 2', '(("id" = $1 OR "id" = $2))', [1, 2]],
    ['not (id eq 1)', '((NOT "id" = $1))', [1]],
    ['not (id eq 1) or id eq 2', '(((NOT "id" = $1) OR "id" = $2))', [1, 2]],
    ['not active and id eq 2 or id eq 3', '((((NOT coalesce("active", false)) AND "id" = $1) OR "id" = $2))', [2, 3]],
    ['id eq 1 or id eq 2 and id eq 3', '(("id" = $1 OR ("id" = $2 AND "id" = $3)))', [1, 2, 3]],
    ['id eq 1 and (id eq 2 or id eq 3)', '(("id" = $1 AND ("id" = $2 OR "id" = $3)))', [1, 2, 3]],
    ["status in ('Open', 'Void')", '(("status" = $1 OR "status" = $2))', ['open', 'void']],
    ["name in ('a,b', 'it''s in (x)')", '((coalesce("name" = $1, false) OR coalesce("name" = $2, false)))', ['a,b', "it's in (x)"]],
    ["contains(name, '50%_a\\')", '(coalesce("name" LIKE $1, false))', ['%50\\%\\_a\\\\%']],
    ["startswith(name, 'ab')", '(coalesce("name" LIKE $1, false))', ['ab%']],
    ["endswith(name, 'ab')", '(coalesce("name" LIKE $1, false))', ['%ab']],
    ["tolower(name) eq 'abc'", '(coalesce(lower("name") = $1, false))', ['abc']],
    ["contains(tolower(name), 'x')", '(coalesce(lower("name") LIKE $1, false))', ['%x%']],
  ])('%s', (filter, sql, parameters) => {
    expect(where(filter)).toEqual({ sql, parameters });
  });
});

/** The AppError a query fails with. */
function failure(query: Record<string, unknown>): AppError {
  try {
    compile(query);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a 400');
}

describe('$filter errors are 400 parameter_invalid naming $filter', () => {
  it.each([
    ['nope eq 1', /unknown field nope at position 0/],
    ['id eq', /syntax error at position/],
    ["name eq 'abc", /syntax error at position/],
    ['id eq 1 xyz', /syntax error at position/],
    ["id eq 'x'", /literal 'x' at position 6 does not fit the field id, which is int/],
    ["status eq 'Gone'", /does not fit the field status/],
    ['createdAt gt 2024-13-01T00:00:00Z', /syntax error at position \d+|does not fit the field createdAt/],
    ['createdAt gt 2023-02-29T00:00:00Z', /does not fit the field createdAt/],
    ['amount gt true', /does not fit the field amount/],
    ["secret eq 'x'", /cannot be filtered/],
    ['id gt null', /null can only be compared/],
    ['id eq id', /compared with a literal/],
    ['1 eq 1', /needs a field/],
    ['length(name) eq 1', /needs a field|not supported/],
    ['id add 1 eq 2', /needs a field|unsupported/],
    ["contains(id, 'x')", /string field first/],
    ['name', /not a condition/],
    ["id eq 1 and nope in ('a')", /unknown field nope at position 12/],
    ['', /empty/],
    ['('.repeat(5000), /syntax error|longer/],
    ['not '.repeat(100) + 'active', /nesting|syntax/],
  ])('%s', (filter, message) => {
    const err = failure({ $filter: filter });
    expect(err.status).toBe(400);
    expect(err.code).toBe('parameter_invalid');
    expect(err.param).toBe('$filter');
    expect(err.message).toMatch(message);
  });
});

describe('never a 500', () => {
  it('any string in any option compiles or is a 400 AppError', async () => {
    const { default: fc } = await import('fast-check');
    const token = fc.constantFrom(
      'id',
      'name',
      'eq',
      'in',
      'not',
      'and',
      'or',
      '(',
      ')',
      "'",
      "''",
      ',',
      ' ',
      'null',
      '1',
      '1.5',
      'true',
      'contains(',
      'tolower(',
      '2024-01-01T00:00:00Z',
      'status',
      'secret',
      '/',
      '$',
      '%',
      '-',
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(token, { maxLength: 12 }).map((t) => t.join(' ')),
      fc.array(token, { maxLength: 12 }).map((t) => t.join('')),
    );
    const option = fc.constantFrom('$filter', '$orderby', '$top', '$skip', '$count', '$select', '$expand');
    fc.assert(
      fc.property(option, text, (name, value) => {
        try {
          compile({ [name]: value });
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).status).toBe(400);
        }
      }),
      { numRuns: 3000, seed: 15 },
    );
  });
});
