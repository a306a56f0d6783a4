// The transfer fee rule, pure: 1% of the amount, rounded half up to the currency's minor unit,
// split between sender and receiver by `feePayer` (`Both`: the sender's half rounded half up).
import { Decimal } from 'decimal.js';
import type { FeePayer, TransferRow } from './transfer.tables.js';
import { minorUnits } from '../../shared/money.js';

/** The fee rate of every transfer. */
export const TRANSFER_FEE_RATE = new Decimal('0.01');

export interface TransferFee {
  fee: string;
  senderFee: string;
  receiverFee: string;
}

/** The fee of a transfer of `amount` (exact decimal text) and who pays which part; the parts sum to the fee exactly. */
export function transferFee(amount: string, currency: string, feePayer: FeePayer): TransferFee {
  const units = minorUnits(currency);
  const fee = new Decimal(amount).times(TRANSFER_FEE_RATE).toDecimalPlaces(units, Decimal.ROUND_HALF_UP);
  const sender = feePayer === 'Sender' ? fee : feePayer === 'Receiver' ? new Decimal(0) : fee.dividedBy(2).toDecimalPlaces(units, Decimal.ROUND_HALF_UP);
  return { fee: fee.toFixed(units), senderFee: sender.toFixed(units), receiverFee: fee.minus(sender).toFixed(units) };
}

/** The receiver's share of the fee withheld from the money sent: for a destination outside Till (a Till one pays it when it is credited). */
export const withheldOf = (transfer: TransferRow): string => (transfer.destination_account_id === null ? transfer.receiver_fee : '0');
