// Wallet QR payments: a payment waits for the payer (`pending`) behind a QR code that lives as long
// as its session; it is paid, withdrawn or expires. Wallet refunds are accepted at once
// (`pending_reversal`) and finish after the sandbox delay.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentRow } from './payment.tables.js';
import type { PaymentOption } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import type { DueScope } from '../../shared/due-scope.js';
import { decimalToString } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { issueQr, WALLET_REFUND_DELAY_MINUTES } from '../../rails/wallet-qr.js';
import { post } from '../ledger/ledger.service.js';
import {
  completePendingRefunds,
  type DuePayment,
  findDuePayments,
  findLiveQrData,
  findSessionPayment,
  insertPayment,
  insertRefund,
  nextDuePayment,
  updatePayment,
  updateSessionPayment,
} from './payment.repository.js';
import { paymentBase, type PaymentSource } from './payment.service.js';

/** A session's live QR payment (waiting for the payer), optionally locked; undefined when none is live. */
export const liveQrPayment = (db: Db, tenant: Tenant, sessionId: string, options: { lock?: boolean } = {}): Promise<PaymentRow | undefined> =>
  findSessionPayment(db, tenant, sessionId, 'pending', options);

/** The payload of a live QR code, by the token that names its image; undefined once paid, withdrawn or expired. */
export const liveQrData = (db: Db, token: string, now: Date): Promise<string | undefined> => findLiveQrData(db, token, now);

/** Issues a QR code for the source's amount: a payment waiting for the payer, until `expiresAt`. */
export async function issueQrPayment(
  trx: Trx,
  clock: Clock,
  source: PaymentSource,
  wallet: PaymentOption,
  merchantName: string,
  expiresAt: Date,
): Promise<PaymentRow> {
  const base = paymentBase(source, null, clock.now());
  const qr = issueQr({ reference: base.reference_number, amount: decimalToString(source.amount, source.currency), currency: source.currency, merchantName });
  return insertPayment(trx, {
    ...base,
    status: 'pending',
    method_type: 'wallet',
    wallet_name: wallet.name,
    qr_token: qr.token,
    qr_data: qr.data,
    qr_expires_at: expiresAt,
  });
}

/** Ends a session's live QR code so it can no longer be paid: `withdrawn` or `expired`. Answers the payment, or undefined when none was live. */
export async function endLiveQr(db: Db, clock: Clock, tenant: Tenant, sessionId: string, status: 'withdrawn' | 'expired'): Promise<PaymentRow | undefined> {
  const now = clock.now();
  return updateSessionPayment(db, tenant, sessionId, 'pending', { status, withdrawn_at: status === 'withdrawn' ? now : null, updated_at: now });
}

/** Accepts a wallet refund (always of all that is left): the payment is `pending_reversal` until the wallet finishes it. */
export async function acceptWalletRefund(
  trx: Trx,
  clock: Clock,
  payment: PaymentRow,
  amount: Decimal,
  input: { reason?: string | undefined; fromBalance: boolean },
): Promise<PaymentRow> {
  const now = clock.now();
  const accepted = (await updatePayment(trx, tenantOf(payment), payment.id, {
    status: 'pending_reversal',
    refunded_amount: new Decimal(payment.refunded_amount).plus(amount).toFixed(),
    refund_attempts: payment.refund_attempts + 1,
    refund_last_attempt_at: now,
    refund_last_outcome: 'pending',
    refund_completes_at: new Date(now.getTime() + WALLET_REFUND_DELAY_MINUTES * 60_000),
    updated_at: now,
  }))!;
  await insertRefund(trx, {
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    amount: amount.toFixed(),
    currency: payment.currency,
    status: 'pending',
    from_balance: input.fromBalance,
    reason: input.reason ?? null,
    created_at: now,
  });
  return accepted;
}

/**
 * Finishes a locked wallet refund under way whose time has come, once: its refunds succeed, the
 * money goes back to the payer in the ledger and the payment is `refunded`. Answers the payment and
 * the amount, or undefined when it is not due.
 */
export async function completeWalletRefund(trx: Trx, clock: Clock, payment: PaymentRow): Promise<{ payment: PaymentRow; amount: Decimal } | undefined> {
  if (payment.status !== 'pending_reversal' || !payment.refund_completes_at || payment.refund_completes_at > clock.now()) return undefined;
  const now = clock.now();
  const tenant = tenantOf(payment);
  const refunds = await completePendingRefunds(trx, tenant, payment.id);
  const amount = refunds.reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
  const refunded = (await updatePayment(trx, tenant, payment.id, {
    status: 'refunded',
    refund_last_outcome: 'completed',
    refund_completes_at: null,
    updated_at: now,
  }))!;
  if (amount.greaterThan(0)) {
    await post(
      trx,
      { tenant, paymentId: payment.id, currency: payment.currency, at: now },
      refunds.map((r) => ({ type: 'refund' as const, amount: r.amount, from: r.from_balance ? ('available' as const) : ('pending' as const), accepted: true })),
    );
  }
  return { payment: refunded, amount };
}

/** Wallet refunds of a scope under way whose delay has passed by `now`, earliest first. */
export const findDueWalletRefunds = (db: Db, scope: DueScope, now: Date, limit: number): Promise<DuePayment[]> =>
  findDuePayments(db, scope, { statuses: ['pending_reversal'], column: 'refund_completes_at', until: now }, limit);

/** When the scope's next wallet refund completes, after `after`. */
export const nextWalletRefund = (db: Db, scope: DueScope, after: Date): Promise<Date | null> =>
  nextDuePayment(db, scope, { statuses: ['pending_reversal'], column: 'refund_completes_at', after });
