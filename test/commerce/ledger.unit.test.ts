// The ledger's rules: every movement is a balanced posting, so every balance is a sum, and money
// never leaves a balance that does not hold it. Property tests post random movements to the pure
// rules (the ledger service on a database: ledger.domain.test.ts).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { availableDebit, balanced, entriesFor } from '../../server/domain/ledger/postings.js';
import { ACCOUNTS, apply, emptyBooks, plan, step } from '../support/ledger-model.js';

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
