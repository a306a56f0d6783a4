// A transfer after it was made: `Processing` until it falls due on the clock (transfer-timing.ts),
// then `Completed` (a Till destination is credited, less the receiver's share of the fee) or
// `Failed` (everything it took returns to the source account). Money moves only through the
// ledger; each change writes its event in the same transaction.
import type { Db, Trx } from '../../db/database.js';
import type { TransferRow } from './transfer.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { findDestination } from '../accounts/account.repository.js';
import { writeEvent } from '../events/event.service.js';
import { post } from '../ledger/ledger.service.js';
import { DEFAULT_TRANSFER_FAILURE } from './transfer-timing.js';
import { withheldOf } from './transfer-fee.js';
import * as repo from './transfer.repository.js';

const postingOf = (transfer: TransferRow, tenant: Tenant, at: Date) => ({
  tenant,
  paymentId: null,
  transferId: transfer.id,
  currency: transfer.currency.trim(),
  at,
});

/**
 * Credits a Till destination with the amount less the receiver's share of the fee. Answers why it
 * cannot take the money (closed or frozen since the transfer was made), crediting nothing then.
 */
async function creditTillDestination(trx: Trx, transfer: TransferRow, at: Date): Promise<string | undefined> {
  const number = transfer.destination_account_number;
  const destination = await findDestination(trx, transfer.livemode, number);
  if (destination?.id !== transfer.destination_account_id) return `Account ${number} no longer exists.`;
  if (destination.status !== 'Active') return `Account ${number} is ${destination.status}: it cannot receive money.`;
  await post(trx, postingOf(transfer, tenantOf(destination), at), [{ type: 'transfer_in', amount: transfer.amount, receiverFee: transfer.receiver_fee }]);
  return undefined;
}

/** A transfer fails: the amount and the sender's share of the fee return to the source account; `transfer.failed`. */
async function failTransfer(trx: Trx, clock: Clock, transfer: TransferRow, reason: string): Promise<TransferRow> {
  const tenant = tenantOf(transfer);
  const now = clock.now();
  await post(trx, postingOf(transfer, tenant, now), [
    { type: 'transfer_return', amount: transfer.amount, senderFee: transfer.sender_fee, withheld: withheldOf(transfer) },
  ]);
  const failed = await repo.updateTransfer(trx, tenant, transfer.id, { status: 'Failed', failed_at: now, failure_reason: reason });
  await writeEvent(trx, clock, { tenant, type: 'transfer.failed', subject: { kind: 'transfer', transfer: failed } });
  return failed;
}

/** A transfer falls due: a Till destination is credited (or, closed since, the transfer fails); `transfer.completed`. */
async function completeTransfer(trx: Trx, clock: Clock, transfer: TransferRow): Promise<TransferRow> {
  const tenant = tenantOf(transfer);
  const now = clock.now();
  const problem = transfer.destination_account_id === null ? undefined : await creditTillDestination(trx, transfer, now);
  if (problem) return failTransfer(trx, clock, transfer, problem);
  const completed = await repo.updateTransfer(trx, tenant, transfer.id, { status: 'Completed', completed_at: now });
  await writeEvent(trx, clock, { tenant, type: 'transfer.completed', subject: { kind: 'transfer', transfer: completed } });
  return completed;
}

/** The due-work step: every `Processing` transfer of the scope that has fallen due completes (or fails). */
export async function completeDueTransfers(db: Db, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let count = 0;
  for (const due of await repo.findDueTransfers(db, scope, scoped.now(), batch)) {
    const done = await db.transaction().execute(async (trx) => {
      const transfer = await repo.findTransfer(trx, tenantOf(due), due.id, { lock: true });
      return transfer?.status === 'Processing' ? completeTransfer(trx, scoped, transfer) : undefined;
    });
    if (done) count++;
  }
  return count;
}

/** When the scope's next transfer falls due after `after`, or null. */
export const nextTransferWork = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => repo.nextTransferDue(db, scope, after);

/** The test helper: a `Processing` test transfer fails now, as if the receiving side rejected it. */
export async function failTransferNow(db: Db, clock: Clock, tenant: Tenant, transferId: number, reason?: string): Promise<TransferRow> {
  return db.transaction().execute(async (trx) => {
    const transfer = await repo.findTransfer(trx, tenant, transferId, { lock: true });
    if (!transfer) throw new AppError('resource_not_found', { param: 'transferId', message: `No transfer ${transferId}.` });
    if (transfer.status !== 'Processing')
      throw new AppError('invalid_state', { message: `Transfer ${transferId} is ${transfer.status}; only a Processing transfer can fail.` });
    return failTransfer(trx, clock, transfer, reason ?? DEFAULT_TRANSFER_FAILURE);
  });
}
