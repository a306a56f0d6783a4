// A model of the ledger's books for property tests: random steps of a payment's life, the
// movements the payment services would post for them, and the balances the rules give. The pure
// rules (ledger.unit.test.ts) and the ledger service on a database (ledger.domain.test.ts) are
// both held to it.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import type { LedgerAccount } from '../../server/domain/ledger/ledger.tables.js';
import { availableDebit, entriesFor, type Movement } from '../../server/domain/ledger/postings.js';

export const ACCOUNTS: LedgerAccount[] = ['pending', 'available', 'authorized', 'payer', 'fees'];
export type Books = Record<LedgerAccount, Decimal>;
export const emptyBooks = (): Books => Object.fromEntries(ACCOUNTS.map((a) => [a, new Decimal(0)])) as Books;
export const cents = (n: number) => new Decimal(n).dividedBy(100).toFixed(2);

/** One step of a payment's life, drawn at random; `plan` turns it into movements the rules allow. */
export type Step =
  | { kind: 'hold'; amount: number; capture: boolean }
  | { kind: 'charge'; amount: number; feePermille: number; refundShare: number; settle: boolean }
  | { kind: 'refund-available'; amount: number };

export const step: fc.Arbitrary<Step> = fc.oneof(
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
export function plan(s: Step): Movement[][] {
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
export function apply(books: Books, movements: Movement[]): Books | undefined {
  const debit = movements.reduce((sum, m) => sum.plus(availableDebit(m)), new Decimal(0));
  if (books.available.lessThan(debit)) return undefined;
  const next = { ...books };
  for (const entry of movements.flatMap(entriesFor)) next[entry.account] = next[entry.account].plus(entry.amount);
  return next;
}
