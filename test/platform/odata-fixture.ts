import { Kysely, PostgresDialect } from 'kysely';
import { defineResource } from '../../server/odata/index.js';

/** A small declared resource the OData tests share. */
export const orders = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    name: { column: 'name', type: 'string', nullable: true },
    amount: { column: 'amount', type: 'decimal' },
    active: { column: 'active', type: 'boolean', nullable: true },
    status: { column: 'status', type: { enum: ['Open', 'Paid', 'Void'], toDb: (w) => w.toLowerCase() } },
    createdAt: { column: 'created_at', type: 'datetime' },
    ref: { column: 'ref', type: 'guid', nullable: true },
    secret: { column: 'secret', type: 'string', filter: false, sort: false, select: false },
  },
  expand: ['Items'],
});

/** A Kysely that only compiles (no connection). */
export const compiler = new Kysely<any>({ dialect: new PostgresDialect({ pool: {} as never }) });
