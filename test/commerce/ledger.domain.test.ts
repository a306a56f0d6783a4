// The ledger service on a real database (a copy of the template; PostgreSQL when DATABASE_URL is
// set): random movements posted through it leave exactly the balances the rules give, and a
// refund beyond the available balance is refused with nothing written.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { balances, InsufficientBalanceError, post } from '../../server/domain/ledger/ledger.service.js';
import type { Movement } from '../../server/domain/ledger/postings.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { systemClock } from '../../server/shared/clock.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { useTestDatabase } from '../support/domain.js';
import { apply, emptyBooks, plan, step } from '../support/ledger-model.js';

describe('the ledger service on a database', () => {
  const database = useTestDatabase();
  let merchantId: number;

  beforeAll(async () => {
    merchantId = (await createMerchant(database.db, systemClock, { name: `Ledger property ${Date.now()}` })).merchant.id;
  });

  /** Balances as exact decimals at the column's scale (numeric(20, 4)), to compare values rather than spellings. */
  const exact = (b: Awaited<ReturnType<typeof balances>>) => ({
    currency: b.currency,
    pending: new Decimal(b.pending).toFixed(4),
    available: new Decimal(b.available).toFixed(4),
    current: new Decimal(b.current).toFixed(4),
    authorized: new Decimal(b.authorized).toFixed(4),
  });

  /** Posts one set of movements in a transaction; answers whether the ledger took it. */
  const postIn = (tenant: Tenant, currency: string, movements: Movement[]) =>
    database.db
      .transaction()
      .execute((trx) => post(trx, { tenant, paymentId: null, currency, at: new Date() }, movements))
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof InsufficientBalanceError) return false;
          throw error;
        },
      );

  it('posts random movements: each balance is the exact sum the rules give, and a refund beyond available is refused with nothing written', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const currency = `X${String.fromCharCode(65 + (run % 26))}${String.fromCharCode(65 + (Math.floor(run / 26) % 26))}`;
        run += 1;
        const tenant = { merchantId, livemode: false };
        let books = emptyBooks();
        for (const posting of steps.flatMap(plan)) {
          const expected = apply(books, posting);
          expect(await postIn(tenant, currency, posting)).toBe(expected !== undefined);
          books = expected ?? books;
        }
        expect(exact(await balances(database.db, tenant, currency))).toEqual({
          currency,
          pending: books.pending.toFixed(4),
          available: books.available.toFixed(4),
          current: books.pending.plus(books.available).toFixed(4),
          authorized: books.authorized.toFixed(4),
        });
        expect(exact(await balances(database.db, { merchantId, livemode: true }, currency))).toEqual({
          currency,
          pending: '0.0000',
          available: '0.0000',
          current: '0.0000',
          authorized: '0.0000',
        });
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
