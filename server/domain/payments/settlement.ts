// Settlement: a captured payment's net (its payment less its fee and the refunds taken before it
// settled) moves from the pending to the available balance, 48 hours after capture in the sandbox.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentRow } from './payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import type { DueScope } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { pendingNetOf, post } from '../ledger/ledger.service.js';
import { type DuePayment, findDuePayments, nextDuePayment, updatePayment } from './payment.repository.js';
import { getPayment } from './payment.service.js';
import { isPaid } from './refunds.js';

/** Sandbox settlement delay: a captured payment settles to the available balance this long after capture. */
export const SETTLEMENT_DELAY_HOURS = 48;
const SETTLEMENT_DELAY_MS = SETTLEMENT_DELAY_HOURS * 3600_000;
const SETTLEABLE = ['succeeded', 'captured', 'partially_refunded'] as const;

/** A settled payment and what moved. */
export interface Settlement {
  payment: PaymentRow;
  /** What was captured. */
  gross: string;
  fee: string;
  /** What moved to the available balance (gross less fee and earlier refunds). */
  net: string;
  settledAt: Date;
}

/** Settles a locked payment now: its pending net moves to the available balance. */
export async function settle(trx: Trx, clock: Clock, payment: PaymentRow): Promise<Settlement> {
  const now = clock.now();
  const tenant = tenantOf(payment);
  const net = await pendingNetOf(trx, tenant, payment.id);
  await post(trx, { tenant, paymentId: payment.id, currency: payment.currency, at: now }, [{ type: 'settlement', net: new Decimal(net).toFixed() }]);
  const settled = (await updatePayment(trx, tenant, payment.id, { settled_at: now, updated_at: now }))!;
  return { payment: settled, gross: settled.captured_amount ?? settled.amount, fee: settled.fee, net, settledAt: now };
}

/** Settles one of the tenant's captured payments now (the settle test helper). */
export async function settleNow(trx: Trx, clock: Clock, tenant: Tenant, paymentId: number): Promise<Settlement> {
  const payment = await getPayment(trx, tenant, paymentId, { lock: true });
  if (payment.settled_at) throw new AppError('invalid_state', { message: 'This payment has already settled.' });
  if (!isPaid(payment) && payment.status !== 'refunded') throw new AppError('invalid_state', { message: 'Only a paid (captured) payment can settle.' });
  return settle(trx, clock, payment);
}

/** Captured payments of a scope that are due to settle by `now`, earliest first. */
export const findDueSettlements = (db: Db, scope: DueScope, now: Date, limit: number): Promise<DuePayment[]> =>
  findDuePayments(db, scope, { statuses: SETTLEABLE, column: 'captured_at', until: new Date(now.getTime() - SETTLEMENT_DELAY_MS), unsettledOnly: true }, limit);

/** When the scope's next captured payment settles, after `after`. */
export async function nextSettlement(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const capturedAt = await nextDuePayment(db, scope, {
    statuses: SETTLEABLE,
    column: 'captured_at',
    after: new Date(after.getTime() - SETTLEMENT_DELAY_MS),
    unsettledOnly: true,
  });
  return capturedAt ? new Date(capturedAt.getTime() + SETTLEMENT_DELAY_MS) : null;
}

/** The settlement job's step: settles one due payment (locked), unless it settled meanwhile. */
export async function settleIfUnsettled(trx: Trx, clock: Clock, due: DuePayment): Promise<boolean> {
  const payment = await getPayment(trx, tenantOf(due), due.id, { lock: true });
  if (payment.settled_at) return false;
  await settle(trx, clock, payment);
  return true;
}
