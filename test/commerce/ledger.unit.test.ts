// The ledger's rules: every movement is a balanced posting, so every balance is a sum, and money
// never leaves a balance that does not hold it. Property tests post random movements, first to
// the pure rules, then through the ledger service on a real database (PGlite; PostgreSQL when
// DATABASE_URL is set).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TillDatabase } from '../../server/db/database.js';
import type { LedgerAccount } from '../../server/db/tables/ledger.js';
import { balances, InsufficientBalanceError, post } from '../../server/domain/ledger/ledger.service.js';
import { availableDebit, balanced, entriesFor, type Movement } from '../../server/domain/ledger/postings.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { systemClock } from '../../server/shared/clock.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

const ACCOUNTS: LedgerAccount[] = ['pending', 'available', 'authorized', 'payer', 'fees'];
type Books = Record<LedgerAccount, Decimal>;
const emptyBooks = (): Books => Object.fromEntries(ACCOUNTS.map((a) => [a, new Decimal(0)])) as Books;
const cents = (n: number) => new Decimal(n).dividedBy(100).toFixed(2);

/** One step of a payment's life, drawn at random; `plan` turns it into movements the rules allow. */
type Step =
  | { kind: 'hold'; amount: number; capture: boolean }
  | { kind: 'charge'; amount: number; feePermille: number; refundShare: number; settle: boolean }
  | { kind: 'refund-available'; amount: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('hold' as const), amount: fc.integer({ min: 1, max: 500_000 }), capture: fc.boolean() }),
  fc.record({
    kind: fc.constant('charge' as const),
    amount: fc.integer({ min: 1, max: 500_000 }),
    feePermille: fc.integer({ min: 0, max: 50 }),
    refundShare: fc.integer({ min: 0, max: 100 }),
    settle: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('refund-available' as const), amount: fc.integer({ min: 1, max: 800_000 }) }),
);

/** The movements of one step, as the payment services post them (amounts in cents). */
function plan(s: Step): Movement[][] {
  if (s.kind === 'hold') {
    const authorized = cents(s.amount);
    return [
      [{ type: 'authorization', amount: authorized }],
      s.capture
        ? [
            { type: 'capture', authorized },
            { type: 'payment', amount: authorized },
          ]
        : [{ type: 'release', authorized }],
    ];
  }
  if (s.kind === 'refund-available') return [[{ type: 'refund', amount: cents(s.amount), from: 'available' }]];
  const fee = Math.floor((s.amount * s.feePermille) / 1000);
  const refund = Math.floor(((s.amount - fee) * s.refundShare) / 100);
  const postings: Movement[][] = [[{ type: 'payment', amount: cents(s.amount) }, ...(fee > 0 ? [{ type: 'fee' as const, amount: cents(fee) }] : [])]];
  if (refund > 0) postings.push([{ type: 'refund', amount: cents(refund), from: 'pending' }]);
  if (s.settle) postings.push([{ type: 'settlement', net: cents(s.amount - fee - refund) }]);
  return postings;
}

/** The books after a posting, or undefined when the rules refuse it (an available balance too short). */
function apply(books: Books, movements: Movement[]): Books | undefined {
  const debit = movements.reduce((sum, m) => sum.plus(availableDebit(m)), new Decimal(0));
  if (books.available.lessThan(debit)) return undefined;
  const next = { ...books };
  for (const entry of movements.flatMap(entriesFor)) next[entry.account] = next[entry.account].plus(entry.amount);
  return next;
}

describe('postings (the pure rules)', () => {
  it('every movement is two entries of opposite sign that sum to exactly zero', () => {
    fc.assert(
      fc.property(step, (s) => {
        for (const movement of plan(s).flat()) {
          const entries = entriesFor(movement);
          expect(entries).toHaveLength(2);
          expect(balanced(entries)).toBe(true);
          expect(new Decimal(entries[0]!.amount).isNegative() || new Decimal(entries[0]!.amount).isZero()).toBe(true);
        }
      }),
    );
  });

  it('over any sequence, the books sum to zero, no hold or fee account goes negative, and available only by a refused posting', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let books = emptyBooks();
        for (const posting of steps.flatMap(plan)) {
          const next = apply(books, posting);
          if (next === undefined) {
            expect(posting.some((m) => m.type === 'refund' && m.from === 'available')).toBe(true);
            continue;
          }
          books = next;
          expect(ACCOUNTS.reduce((sum, a) => sum.plus(books[a]), new Decimal(0)).isZero()).toBe(true);
          expect(books.available.isNegative()).toBe(false);
          expect(books.authorized.isNegative()).toBe(false);
          expect(books.fees.isNegative()).toBe(false);
          expect(books.payer.greaterThan(0)).toBe(false);
        }
      }),
    );
  });

  it('a refund from the available balance needs that balance, unless it was accepted earlier', () => {
    expect(availableDebit({ type: 'refund', amount: '12.50', from: 'available' }).toFixed(2)).toBe('12.50');
    expect(availableDebit({ type: 'refund', amount: '12.50', from: 'available', accepted: true }).toFixed(2)).toBe('0.00');
    expect(availableDebit({ type: 'refund', amount: '12.50', from: 'pending' }).toFixed(2)).toBe('0.00');
    expect(availableDebit({ type: 'settlement', net: '-3.00' }).toFixed(2)).toBe('0.00');
  });
});

describe('the ledger service on a database', () => {
  let copy: TestDatabase;
  let database: TillDatabase;
  let merchantId: number;

  beforeAll(async () => {
    copy = await openTestDatabase();
    database = copy.database;
    merchantId = (await createMerchant(database.db, systemClock, { name: `Ledger property ${Date.now()}` })).merchant.id;
  });
  afterAll(() => copy?.close());

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
