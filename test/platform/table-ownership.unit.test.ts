// Each table has one owning module (server/db/table-owners.ts): only the owner's files read or
// write it; another module goes through what the owner exports. The check reads every statement
// of server/ with the TypeScript compiler (test/support/table-ownership.ts), and shows on a small
// tree of its own (fixtures/table-ownership) that it fails where it should.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLE_OWNERS } from '../../server/db/table-owners.js';
import { declaredTables, describeFinding, ownershipFindings, ownsFile, tableUses } from '../support/table-ownership.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Infrastructure under every module, not held to the map: the migrations create and change every
 * table; db/scope.ts's `inScope` (the due-work scope every repository ANDs into its statements)
 * asks sandbox_clocks whether a merchant's test clock was advanced, for modules of every layer.
 */
const EXEMPT = ['server/db/migrations/', 'server/db/scope.ts'];

const uses = (text: string) => tableUses('x.ts', text, new Set(['payments', 'refunds', 'invoices'])).map((u) => `${u.line} ${u.access} ${u.table}`);

describe('table ownership', () => {
  it('every statement of server/ reads and writes only tables its module owns', () => {
    expect(ownershipFindings(root, TABLE_OWNERS, EXEMPT).map(describeFinding)).toEqual([]);
  });

  it('every table of the schema has an owner, and every owner is a folder of server/', () => {
    expect([...declaredTables(root).keys()].sort()).toEqual(Object.keys(TABLE_OWNERS).sort());
    for (const owner of new Set(Object.values(TABLE_OWNERS))) expect(existsSync(path.join(root, 'server', owner)), owner).toBe(true);
  });

  it("declares each table's type in its owner's folder (server/db/schema.ts only gathers them)", () => {
    const owners: Readonly<Record<string, string>> = TABLE_OWNERS;
    const misplaced = [...declaredTables(root)].filter(([table, file]) => !ownsFile(owners[table] ?? '(none)', file));
    expect(misplaced.map(([table, file]) => `${table} in ${file}`)).toEqual([]);
  });

  it('fails on a module that writes another one’s table, one that reads it in raw SQL, and an edge that touches tables', () => {
    const fixture = path.join(import.meta.dirname, 'fixtures/table-ownership');
    const owners = { orders: 'domain/orders', customers: 'domain/orders', audit_log: 'domain/audit' };
    expect(ownershipFindings(fixture, owners, []).map(describeFinding)).toEqual([
      'server/api/orders.ts:6 writes (computed) (owner: (none))',
      'server/api/orders.ts:7 reads orders (owner: domain/orders)',
      'server/api/orders.ts:7 reads customers (owner: domain/orders)',
      'server/domain/audit/audit.repository.ts:8 writes orders (owner: domain/orders)',
      'server/domain/audit/audit.repository.ts:13 reads orders (owner: domain/orders)',
    ]);
  });

  it('reads the forms a statement names its tables in', () => {
    expect(uses(`db.mergeInto('payments as p').using('refunds as r', 'r.payment_id', 'p.id')`)).toEqual(['1 write payments', '1 read refunds']);
    expect(uses(`db.updateTable('invoices').from(['payments', 'refunds'])`)).toEqual(['1 write invoices', '1 read payments', '1 read refunds']);
    expect(uses(`({ selectFrom }) => selectFrom('payments').innerJoin(sub.as('r'), 'r.id', 'id')`)).toEqual(['1 read payments']);
    expect(uses('sql`UPDATE payments SET x = 1\n  FROM refunds r WHERE x IS DISTINCT FROM invoices.status`')).toEqual(['1 write payments', '2 read refunds']);
    expect(uses(`pool.query('DELETE FROM invoices WHERE id = $1'); sql.raw('INSERT INTO refunds VALUES (1)')`)).toEqual([
      '1 write invoices',
      '1 write refunds',
    ]);
    expect(uses('Array.from(rows); sql`SELECT EXTRACT(EPOCH FROM created_at) FROM generate_series(1, 2)`')).toEqual([]);
  });
});
