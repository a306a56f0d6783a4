// The engine against a real database: random filters run on PGlite must select exactly the rows
// an in-memory evaluation of the same filter selects, and no filter reaches another tenant.
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofTenant } from '../../server/db/scope.js';
import { compileQuery, defineResource, page } from '../../server/odata/index.js';
import { pgliteTemplate } from '../support/database.js';

interface Row {
  id: number;
  merchant_id: number;
  livemode: boolean;
  name: string | null;
  cents: number;
  active: boolean | null;
  status: string;
  at: number;
}

const resource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    name: { column: 'name', type: 'string', nullable: true },
    amount: { column: 'amount', type: 'decimal' },
    active: { column: 'active', type: 'boolean', nullable: true },
    status: { column: 'status', type: { enum: ['Open', 'Paid', 'Void'] } },
    createdAt: { column: 'created_at', type: 'datetime' },
  },
});

const BASE = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const chars = fc.constantFrom('a', 'b', 'A', '%', '_', '\\', "'", ' ');
const text = fc.array(chars, { maxLength: 3 }).map((a) => a.join(''));
const statuses = ['Open', 'Paid', 'Void'] as const;
const rowArb = fc.record({
  name: fc.option(text, { nil: null }),
  cents: fc.integer({ min: 0, max: 3000 }),
  active: fc.option(fc.boolean(), { nil: null }),
  status: fc.constantFrom(...statuses),
  hours: fc.integer({ min: 0, max: 48 }),
});

let db: Kysely<any>;
let rows: Row[] = [];

beforeAll(async () => {
  // The run's migrated template (test/support/database.ts) loads faster than a new PGlite runs initdb.
  db = new Kysely<any>({ dialect: new PGliteDialect(await PGlite.create({ loadDataDir: await pgliteTemplate() })) });
  await sql`create table orders (id int primary key, merchant_id int not null, livemode boolean not null, name text collate "C",
    amount numeric(12,2) not null, active boolean, status text not null, created_at timestamptz not null)`.execute(db);
  const seeds = fc.sample(rowArb, { numRuns: 60, seed: 15 });
  rows = seeds.map((s, i) => ({
    id: i + 1,
    merchant_id: (i % 3) + 1,
    livemode: i % 2 === 0,
    name: s.name,
    cents: s.cents,
    active: s.active,
    status: s.status,
    at: BASE + s.hours * HOUR,
  }));
  await db
    .insertInto('orders')
    .values(
      rows.map((r) => ({
        id: r.id,
        merchant_id: r.merchant_id,
        livemode: r.livemode,
        name: r.name,
        amount: (r.cents / 100).toFixed(2),
        active: r.active,
        status: r.status,
        created_at: new Date(r.at),
      })),
    )
    .execute();
});
afterAll(async () => {
  await db?.destroy();
});

type Filter = { text: string; test: (r: Row) => boolean };
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
const ops = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
function cmp<T>(op: (typeof ops)[number], a: T, b: T): boolean {
  return { eq: a === b, ne: a !== b, gt: a > b, ge: a >= b, lt: a < b, le: a <= b }[op];
}
/** OData two-valued comparison: a NULL column is false, except `ne` (distinct from). */
const nullable = <T>(op: (typeof ops)[number], a: T | null, b: T) => (a === null ? op === 'ne' : cmp(op, a, b));
const money = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const leaf: fc.Arbitrary<Filter> = fc.oneof(
  fc.tuple(fc.constantFrom(...ops), fc.integer({ min: 0, max: 62 })).map(([op, n]) => ({ text: `id ${op} ${n}`, test: (r: Row) => cmp(op, r.id, n) })),
  fc
    .tuple(fc.constantFrom(...ops), fc.integer({ min: 0, max: 3000 }))
    .map(([op, c]) => ({ text: `amount ${op} ${money(c)}`, test: (r: Row) => cmp(op, r.cents, c) })),
  fc.tuple(fc.constantFrom(...ops), text, fc.boolean()).map(([op, s, lower]) => ({
    text: lower ? `tolower(name) ${op} ${quote(s)}` : `name ${op} ${quote(s)}`,
    test: (r: Row) => nullable(op, lower && r.name !== null ? r.name.toLowerCase() : r.name, s),
  })),
  fc.constantFrom('eq', 'ne').map((op) => ({ text: `name ${op} null`, test: (r: Row) => (r.name === null) === (op === 'eq') })),
  fc.tuple(fc.constantFrom('contains', 'startswith', 'endswith'), text).map(([fn, s]) => ({
    text: `${fn}(name, ${quote(s)})`,
    test: (r: Row) => r.name !== null && (fn === 'contains' ? r.name.includes(s) : fn === 'startswith' ? r.name.startsWith(s) : r.name.endsWith(s)),
  })),
  fc.tuple(fc.constantFrom('eq', 'ne'), fc.boolean()).map(([op, b]) => ({ text: `active ${op} ${b}`, test: (r: Row) => nullable(op, r.active, b) })),
  fc.constant({ text: 'active', test: (r: Row) => r.active === true }),
  fc
    .tuple(fc.constantFrom('eq', 'ne'), fc.constantFrom(...statuses))
    .map(([op, s]) => ({ text: `status ${op} '${s}'`, test: (r: Row) => cmp(op, r.status, s) })),
  fc
    .subarray([...statuses], { minLength: 1 })
    .map((ss) => ({ text: `status in (${ss.map(quote).join(', ')})`, test: (r: Row) => ss.includes(r.status as never) })),
  fc
    .tuple(fc.constantFrom(...ops), fc.integer({ min: 0, max: 48 }))
    .map(([op, h]) => ({ text: `createdAt ${op} ${iso(BASE + h * HOUR)}`, test: (r: Row) => cmp(op, r.at, BASE + h * HOUR) })),
);

const filterArb: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('f'), tie('f')).map(([a, b]) => ({ text: `(${a.text}) and (${b.text})`, test: (r: Row) => a.test(r) && b.test(r) })),
    fc.tuple(tie('f'), tie('f')).map(([a, b]) => ({ text: `${a.text} or ${b.text}`, test: (r: Row) => a.test(r) || b.test(r) })),
    tie('f').map((a) => ({ text: `not (${a.text})`, test: (r: Row) => !a.test(r) })),
  ),
})).f;

const tenant = { merchantId: 1, livemode: true } as const;
const scoped = () =>
  db
    .selectFrom('orders')
    .select('id')
    .where(ofTenant(tenant as never));
const mine = (r: Row) => r.merchant_id === tenant.merchantId && r.livemode === tenant.livemode;

describe('OData engine on PGlite', () => {
  it('random filters select the same rows as an in-memory evaluation', async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, async (f) => {
        const query = compileQuery(resource, { $filter: f.text, $top: '100', $count: 'true', $orderby: 'id asc' });
        const result = await page(query, scoped(), '/v1/orders');
        const expected = rows.filter((r) => mine(r) && f.test(r)).map((r) => r.id);
        expect(result.value.map((r) => r.id)).toEqual(expected);
        expect(result['@odata.count']).toBe(expected.length);
      }),
      { numRuns: 300, seed: 1515 },
    );
  });

  it("an or in the filter cannot reach another tenant's rows", async () => {
    const query = compileQuery(resource, { $filter: 'id gt 0 or id lt 0 or active eq false', $top: '100' });
    const compiled = query.apply(scoped()).compile();
    expect(compiled.sql).toMatch(/where \("merchant_id" = \$1 AND "livemode" = \$2\) and \(\("id" > \$3 OR/);
    const result = await page(query, scoped(), '/v1/orders');
    expect(result.value.map((r) => r.id)).toEqual(
      rows
        .filter(mine)
        .map((r) => r.id)
        .sort((a, b) => b - a),
    );
  });

  it('pages with a next link and a count that ignores $top and $skip', async () => {
    const all = rows
      .filter(mine)
      .map((r) => r.id)
      .sort((a, b) => a - b);
    const first = await page(compileQuery(resource, { $orderby: 'id', $top: '3', $count: 'true' }), scoped(), '/v1/orders');
    expect(first).toEqual({
      value: all.slice(0, 3).map((id) => ({ id })),
      '@odata.count': all.length,
      '@odata.nextLink': '/v1/orders?$orderby=id&$top=3&$skip=3&$count=true',
    });
    const last = await page(compileQuery(resource, { $orderby: 'id', $top: '3', $skip: String(all.length - 2) }), scoped(), '/v1/orders');
    expect(last).toEqual({ value: all.slice(-2).map((id) => ({ id })) });
  });
});
