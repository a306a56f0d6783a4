// When a transfer completes, and the institution it goes through, as pure rules. A transfer between
// Till accounts completes 1 hour after it was made; one out of Till (a bank, a CBDC wallet) on the
// next business day at the same time of day: 24 hours later, moved past Saturday and Sunday (UTC),
// as a bank's next-day transfer does. The clock runs it: the merchant's sandbox clock in test mode.
import type { InstitutionId, TransferAction } from './transfer.tables.js';

/** How long a transfer between Till accounts is `Processing`. */
export const TILL_TRANSFER_HOURS = 1;
/** What a failed transfer says when the test helper gave no reason. */
export const DEFAULT_TRANSFER_FAILURE = 'The receiving institution rejected the transfer (test helper).';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SATURDAY = 6;
const SUNDAY = 0;

/** The institution a transfer of `action` goes through: 1 Till, 2 the bank network, 3 the CBDC network. */
export function institutionOf(action: TransferAction): InstitutionId {
  if (action === 'ExecuteTransfer') return 1;
  return action === 'CBDCTransfer' ? 3 : 2;
}

/** When a transfer of `action` made at `madeAt` completes. */
export function completesAt(action: TransferAction, madeAt: Date): Date {
  if (action === 'ExecuteTransfer') return new Date(madeAt.getTime() + TILL_TRANSFER_HOURS * HOUR_MS);
  let due = new Date(madeAt.getTime() + DAY_MS);
  while (due.getUTCDay() === SATURDAY || due.getUTCDay() === SUNDAY) due = new Date(due.getTime() + DAY_MS);
  return due;
}
