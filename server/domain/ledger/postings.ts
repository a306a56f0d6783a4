// What each money movement posts, as pure rules: every posting's entries sum to zero, so a
// balance is a sum and the books can be audited. No database here; `ledger.service.ts` writes.
import { Decimal } from 'decimal.js';
import type { LedgerAccount, LedgerEntryType } from './ledger.tables.js';

/** One money movement, in the currency of its payment. Amounts are exact decimal strings, positive. */
export type Movement =
  /** A card hold: the amount is held on the payer's card, not money yet. */
  | { type: 'authorization'; amount: string }
  /** A hold ends because it is captured (the captured money is then a `payment`). */
  | { type: 'capture'; authorized: string }
  /** A hold ends without a charge (released, or lapsed). */
  | { type: 'release'; authorized: string }
  /** Money taken from the payer: pending until it settles. */
  | { type: 'payment'; amount: string }
  /** The processor's fee, taken from the pending money. */
  | { type: 'fee'; amount: string }
  /**
   * Money back to the payer, from the pending balance (not settled yet) or the available one. A
   * refund that finishes what was accepted earlier (a wallet's) was checked against the balance
   * when it was accepted (`accepted`), and is not refused now.
   */
  | { type: 'refund'; amount: string; from: 'pending' | 'available'; accepted?: boolean }
  /** A payment's pending net (payments less fees and refunds, which may be negative) becomes available. */
  | { type: 'settlement'; net: string }
  /**
   * A dispute lost or accepted: the disputed amount goes back to the cardholder, from the pending
   * balance (not settled yet) or the available one. Never refused: the balance may go negative.
   */
  | { type: 'dispute'; amount: string; from: 'pending' | 'available' }
  /** The acquirer's fee for a dispute lost or accepted, from the same balance. Never refused either. */
  | { type: 'dispute_fee'; amount: string; from: 'pending' | 'available' }
  /** A payout leaves: the amount goes from the available balance to the bank (in transit). Refused when the balance is short. */
  | { type: 'payout'; amount: string }
  /** A payout arrives at the merchant's bank: in transit → paid out. */
  | { type: 'payout_arrival'; amount: string }
  /** A payout fails (in transit) or is returned by the bank (paid out): its money is available again. */
  | { type: 'payout_return'; amount: string; from: 'in_transit' | 'paid_out' }
  /**
   * A transfer leaves the available balance: `amount` goes to the other side (another Till account
   * or a bank) less `withheld` (the receiver's share of the fee, when the receiver is outside Till),
   * and the sender's share of the fee is paid on top. Refused when the available balance is short.
   */
  | { type: 'transfer_out'; amount: string; senderFee: string; withheld: string }
  /** A transfer from another Till account arrives in the available balance, less the receiver's share of the fee. */
  | { type: 'transfer_in'; amount: string; receiverFee: string }
  /**
   * A transfer fails: everything its `transfer_out` took comes back to the available balance (the
   * money sent, the withheld share and the sender's share of the fee), so a failed transfer costs nothing.
   */
  | { type: 'transfer_return'; amount: string; senderFee: string; withheld: string }
  /** A wallet account pays (an invoice): the amount leaves the available balance. Refused when it is short. */
  | { type: 'account_payment'; amount: string }
  /** A refund of what a wallet account paid arrives back in its available balance. */
  | { type: 'account_refund'; amount: string };

export interface Entry {
  type: LedgerEntryType;
  account: LedgerAccount;
  /** Signed decimal string: into the account is positive. */
  amount: string;
}

const neg = (amount: string) => new Decimal(amount).negated().toFixed();

/** Money moving `amount` from one account to another, as two entries. */
const transfer = (type: LedgerEntryType, from: LedgerAccount, to: LedgerAccount, amount: string): Entry[] => [
  { type, account: from, amount: neg(amount) },
  { type, account: to, amount: new Decimal(amount).toFixed() },
];

/** The entries of a transfer's movement, before zero parts are left out. */
function transferParts(movement: Extract<Movement, { type: 'transfer_out' | 'transfer_in' | 'transfer_return' }>): Entry[] {
  switch (movement.type) {
    case 'transfer_out':
      return [
        { type: 'transfer', account: 'available', amount: neg(movement.amount) },
        { type: 'transfer', account: 'transfers', amount: new Decimal(movement.amount).minus(movement.withheld).toFixed() },
        { type: 'transfer_fee', account: 'fees', amount: new Decimal(movement.withheld).toFixed() },
        ...transfer('transfer_fee', 'available', 'fees', movement.senderFee),
      ];
    case 'transfer_in':
      return [...transfer('transfer', 'transfers', 'available', movement.amount), ...transfer('transfer_fee', 'available', 'fees', movement.receiverFee)];
    case 'transfer_return':
      // The reverse of its `transfer_out`: the money sent, the withheld share and the sender's share of the fee.
      return [
        ...transfer('transfer', 'transfers', 'available', new Decimal(movement.amount).minus(movement.withheld).toFixed()),
        ...transfer('transfer_fee', 'fees', 'available', new Decimal(movement.withheld).plus(movement.senderFee).toFixed()),
      ];
  }
}

/** A transfer's entries, with its fee parts (zero parts left out). */
const transferEntries = (movement: Parameters<typeof transferParts>[0]): Entry[] => transferParts(movement).filter((e) => !new Decimal(e.amount).isZero());

/** The entries of one movement. They always sum to zero. */
export function entriesFor(movement: Movement): Entry[] {
  switch (movement.type) {
    case 'transfer_out':
    case 'transfer_in':
    case 'transfer_return':
      return transferEntries(movement);
    case 'account_payment':
      return transfer('account_payment', 'available', 'payer', movement.amount);
    case 'account_refund':
      return transfer('account_refund', 'payer', 'available', movement.amount);
    case 'authorization':
      return transfer('authorization', 'payer', 'authorized', movement.amount);
    case 'capture':
      return transfer('capture', 'authorized', 'payer', movement.authorized);
    case 'release':
      return transfer('release', 'authorized', 'payer', movement.authorized);
    case 'payment':
      return transfer('payment', 'payer', 'pending', movement.amount);
    case 'fee':
      return transfer('fee', 'pending', 'fees', movement.amount);
    case 'refund':
      return transfer('refund', movement.from, 'payer', movement.amount);
    case 'settlement':
      return transfer('settlement', 'pending', 'available', movement.net);
    case 'dispute':
      return transfer('dispute', movement.from, 'payer', movement.amount);
    case 'dispute_fee':
      return transfer('dispute_fee', movement.from, 'fees', movement.amount);
    case 'payout':
      return transfer('payout', 'available', 'in_transit', movement.amount);
    case 'payout_arrival':
      return transfer('payout', 'in_transit', 'paid_out', movement.amount);
    case 'payout_return':
      return transfer('payout_return', movement.from, 'available', movement.amount);
  }
}

/** Whether a movement takes money out of the available balance (checked against it or not). */
export const takesFromAvailable = (movement: Movement): boolean => ('from' in movement && movement.from === 'available') || movement.type === 'payout';

/** How much a movement takes out of the merchant's available balance (what must be there first). */
export function availableDebit(movement: Movement): Decimal {
  if (movement.type === 'payout') return new Decimal(movement.amount);
  if (movement.type === 'transfer_out') return new Decimal(movement.amount).plus(movement.senderFee);
  if (movement.type === 'account_payment') return new Decimal(movement.amount);
  return movement.type === 'refund' && movement.from === 'available' && !movement.accepted ? new Decimal(movement.amount) : new Decimal(0);
}

/** Whether entries balance (sum to exactly zero). */
export const balanced = (entries: readonly Pick<Entry, 'amount'>[]): boolean => entries.reduce((sum, e) => sum.plus(e.amount), new Decimal(0)).isZero();
