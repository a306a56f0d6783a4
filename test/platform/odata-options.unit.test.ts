import { describe, expect, it } from 'vitest';
import { compileQuery, nextLink } from '../../server/odata/index.js';
import { AppError } from '../../server/shared/errors.js';
import { compiler, orders } from './odata-fixture.js';

const sqlOf = (query: Record<string, unknown>) => compileQuery(orders, query).apply(compiler.selectFrom('orders').selectAll()).compile();

describe('$orderby, $top, $skip, $count, $select, $expand', () => {
  it('orders by several fields and ends with the key', () => {
    const c = sqlOf({ $orderby: 'status desc, amount', $top: '10', $skip: '20' });
    expect(c.sql).toBe('select * from "orders" order by "status" desc, "amount" asc, "id" desc limit $1 offset $2');
    expect(c.parameters).toEqual([11, 20]);
  });
  it('defaults: key desc, top 25, skip 0', () => {
    const q = compileQuery(orders, {});
    expect([q.orderBy, q.top, q.skip, q.count, q.select, q.expand]).toEqual([[{ field: 'id', direction: 'desc' }], 25, 0, false, undefined, []]);
  });
  it('keeps the key where the caller put it', () => {
    expect(sqlOf({ $orderby: 'id asc,name' }).sql).toContain('order by "id" asc, "name" asc limit');
  });
  it('reads $count, $select, $expand and coerced values', () => {
    const q = compileQuery(orders, { $count: true, $top: 100, $select: 'id,name', $expand: 'Items', other: 'x' });
    expect([q.count, q.top, q.select, q.expand]).toEqual([true, 100, ['id', 'name'], ['Items']]);
  });
  it('builds the next link from the same options', () => {
    const q = compileQuery(orders, { $filter: "name eq 'a b'", $top: '2', $skip: '4', $count: 'true' });
    expect(nextLink('/v1/orders', q)).toBe("/v1/orders?$filter=name%20eq%20'a%20b'&$top=2&$skip=6&$count=true");
  });
});

describe('option errors are 400s naming the option', () => {
  it.each([
    [{ $top: '101' }, '$top', /101 is over the maximum of 100/],
    [{ $top: '-1' }, '$top', /non-negative integer/],
    [{ $top: '1.5' }, '$top', /non-negative integer/],
    [{ $skip: 'x' }, '$skip', /non-negative integer/],
    [{ $skip: '99999999999' }, '$skip', /over the maximum/],
    [{ $count: 'yes' }, '$count', /true or false/],
    [{ $orderby: 'nope' }, '$orderby', /unknown field nope at position 0/],
    [{ $orderby: 'id, secret' }, '$orderby', /cannot be sorted \(position 4\)/],
    [{ $orderby: 'id up' }, '$orderby', /expected asc or desc after id, not up \(position 3\)/],
    [{ $orderby: 'id,,name' }, '$orderby', /empty item at position 3/],
    [{ $orderby: 'id desc x' }, '$orderby', /syntax error at position 0/],
    [{ $orderby: 'id,id' }, '$orderby', /named twice/],
    [{ $select: 'id,nope' }, '$select', /unknown field nope at position 3/],
    [{ $select: 'secret' }, '$select', /cannot be selected/],
    [{ $expand: 'Items($select=id)' }, '$expand', /unknown navigation/],
    [{ $expand: 'Other' }, '$expand', /unknown navigation Other at position 0/],
    [{ $top: ['1', '2'] }, '$top', /once/],
    [{ $filter: { a: 1 } }, '$filter', /once/],
  ])('%j', (query, param, message) => {
    let err: unknown;
    try {
      sqlOf(query);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 400, code: 'parameter_invalid', param });
    expect((err as AppError).message).toMatch(message);
  });
  it('an unknown $ option is parameter_unknown', () => {
    expect(() => sqlOf({ $search: 'x' })).toThrowError(expect.objectContaining({ code: 'parameter_unknown', param: '$search' }));
  });
});
