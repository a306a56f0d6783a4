// Disputes (chargebacks) on card payments, raised, moved and closed by the sandbox's test helpers.
// Opening one moves no money. Closing it lost or accepted takes the disputed amount and the
// dispute fee from the merchant's balance through the ledger (never refused for a short balance:
// it may go negative, as acquirers do), and puts the amount back as owed on the invoice the
// payment paid. Each change writes its `dispute.*` event in the same transaction.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { DisputeRow, DisputeStatus } from './dispute.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, minorUnits } from '../../shared/money.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { writeEvent } from '../events/event.service.js';
import { reopenInvoice } from '../invoices/invoice.reopen.js';
import { post } from '../ledger/ledger.service.js';
import { getPayment, recordDisputeState } from '../payments/payment.service.js';
import { isPaid, refundableAmount } from '../payments/refunds.js';
import { type DisputeFilter, findDispute, findDisputes, findPaymentDispute, insertDispute, updateDispute } from './dispute.repository.js';

export type { DisputeFilter };

/** The acquirer's fee for a dispute lost or accepted, in major units of the payment's currency. */
export const DISPUTE_FEE = '15';
/** Days the merchant has to submit evidence, unless the helper sets a deadline. */
export const EVIDENCE_DAYS = 21;
/** The outcomes that close a dispute. */
export type DisputeOutcome = 'won' | 'lost' | 'accepted';

const FINAL: readonly DisputeStatus[] = ['won', 'lost', 'accepted'];
export const isClosed = (d: DisputeRow): boolean => FINAL.includes(d.status);

/** The dispute fee in a currency, to its minor units. */
export const disputeFee = (currency: string): string => new Decimal(DISPUTE_FEE).toFixed(minorUnits(currency));

const conflict = (message: string) => new AppError('invalid_state', { message });

async function disputeEvent(trx: Trx, clock: Clock, type: EventType, dispute: DisputeRow, payment: PaymentRow): Promise<void> {
  await writeEvent(trx, clock, {
    tenant: { merchantId: dispute.merchant_id, livemode: dispute.livemode },
    type,
    subject: { kind: 'dispute', dispute },
    paymentId: payment.id,
    sessionId: payment.session_id,
  });
}

/** An evidence deadline: after now (400 `parameter_invalid` otherwise). */
function deadline(at: Date, now: Date): Date {
  if (!(at.getTime() > now.getTime()))
    throw new AppError('parameter_invalid', { param: 'evidenceDueBy', message: `evidenceDueBy must be after the test clock's now (${now.toISOString()}).` });
  return at;
}

/** What a new dispute of a payment may be for: more than 0, at most what was captured and not refunded. */
function disputedAmount(payment: PaymentRow, asked: string | undefined): string {
  const left = refundableAmount(payment);
  if (asked === undefined) return left.toFixed();
  const amount = new Decimal(amountToDecimal(asked, payment.currency));
  if (amount.lessThanOrEqualTo(0)) throw new AppError('parameter_invalid', { param: 'amount', message: 'amount must be more than 0.' });
  if (amount.greaterThan(left)) {
    const digits = minorUnits(payment.currency);
    throw new AppError('parameter_invalid', {
      param: 'amount',
      message: `amount (${amount.toFixed(digits)}) is more than can be disputed (${left.toFixed(digits)} captured and not refunded).`,
    });
  }
  return amount.toFixed();
}

/** A new dispute (a test helper's): the amount as exact decimal text (all that can be disputed when left out), the evidence deadline as a Date. */
export interface NewDispute {
  amount?: string | undefined;
  reason?: string | undefined;
  evidenceDueAt?: Date | undefined;
}

/** Opens a dispute on a paid card payment of the tenant (locked, so a second open waits and is refused): `dispute.opened`, no money moves. */
export async function openDispute(db: Kysely<Database>, clock: Clock, tenant: Tenant, paymentId: number, input: NewDispute): Promise<DisputeRow> {
  return db.transaction().execute(async (trx) => {
    const payment = await getPayment(trx, tenant, paymentId, { lock: true });
    if (payment.method_type !== 'card' || !isPaid(payment)) {
      throw conflict(
        `Only a paid card payment can be disputed; this payment is ${payment.method_type === 'card' ? payment.status.replace('_', ' ') : 'a wallet payment'}.`,
      );
    }
    const existing = await findPaymentDispute(trx, tenant, paymentId);
    if (existing) throw conflict(`Payment ${paymentId} already has a dispute (${existing.id}); a payment is disputed once.`);
    const now = clock.now();
    const dispute = await insertDispute(trx, {
      id: `dp_${randomToken(24)}`,
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      payment_id: payment.id,
      invoice_id: payment.invoice_id,
      amount: disputedAmount(payment, input.amount),
      currency: payment.currency,
      status: 'open',
      previous_status: null,
      reason: input.reason ?? 'general',
      evidence_due_at: input.evidenceDueAt === undefined ? new Date(now.getTime() + EVIDENCE_DAYS * 86_400_000) : deadline(input.evidenceDueAt, now),
      invoice_reopened: null,
      closed_at: null,
      created_at: now,
      updated_at: now,
    });
    await recordDisputeState(trx, payment, { status: 'open' });
    await disputeEvent(trx, clock, 'dispute.opened', dispute, payment);
    return dispute;
  });
}

/** The tenant's dispute, locked, while it is open (409 once closed). */
async function lockOpenDispute(trx: Trx, tenant: Tenant, id: string): Promise<DisputeRow> {
  const dispute = await findDispute(trx, tenant, id, { lock: true });
  if (!dispute) throw new AppError('resource_not_found', { param: 'id', message: `No such dispute: ${id}.` });
  if (isClosed(dispute)) throw conflict(`This dispute is closed (${dispute.status}); a closed dispute does not change.`);
  return dispute;
}

/** Moves an open dispute (status, deadline): `dispute.updated` with the previous status. A change to nothing answers it as it is. */
export async function moveDispute(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: string,
  input: { status?: 'open' | 'under_review' | undefined; evidenceDueAt?: Date | undefined },
): Promise<DisputeRow> {
  return db.transaction().execute(async (trx) => {
    const dispute = await lockOpenDispute(trx, tenant, id);
    const now = clock.now();
    const status = input.status ?? dispute.status;
    const due = input.evidenceDueAt === undefined ? dispute.evidence_due_at : deadline(input.evidenceDueAt, now);
    if (status === dispute.status && due?.getTime() === dispute.evidence_due_at?.getTime()) return dispute;
    const moved = await updateDispute(trx, tenant, id, { status, previous_status: dispute.status, evidence_due_at: due, updated_at: now });
    const payment = await getPayment(trx, tenant, dispute.payment_id);
    await recordDisputeState(trx, payment, { status });
    await disputeEvent(trx, clock, 'dispute.updated', moved, payment);
    return moved;
  });
}

/**
 * Closes an open dispute, once (the row is locked: a second close waits, then is refused).
 * Lost or accepted: the disputed amount and the fee leave the balance the payment's money is in
 * (pending before it settles, available after), and the invoice it paid is owed that amount again.
 */
export async function closeDispute(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: string, outcome: DisputeOutcome): Promise<DisputeRow> {
  return db.transaction().execute(async (trx) => {
    const dispute = await lockOpenDispute(trx, tenant, id);
    const payment = await getPayment(trx, tenant, dispute.payment_id, { lock: true });
    const now = clock.now();
    const lost = outcome !== 'won';
    const fee = lost ? disputeFee(dispute.currency) : '0';
    if (lost) {
      const from = payment.settled_at ? 'available' : 'pending';
      await post(trx, { tenant, paymentId: payment.id, currency: dispute.currency, at: now }, [
        { type: 'dispute', amount: dispute.amount, from },
        { type: 'dispute_fee', amount: fee, from },
      ]);
    }
    const reopened = lost && dispute.invoice_id !== null ? await reopenInvoice(trx, tenant, dispute.invoice_id, dispute.amount) : false;
    const closed = await updateDispute(trx, tenant, id, {
      status: outcome,
      previous_status: dispute.status,
      fee,
      invoice_reopened: reopened,
      evidence_due_at: null,
      closed_at: now,
      updated_at: now,
    });
    await recordDisputeState(trx, payment, { status: outcome, ...(lost ? { chargedBack: dispute.amount } : {}) });
    await disputeEvent(trx, clock, 'dispute.closed', closed, payment);
    return closed;
  });
}

/** The tenant's dispute; 404 for anyone else's. */
export async function getDispute(db: Db, tenant: Tenant, id: string): Promise<DisputeRow> {
  const dispute = await findDispute(db, tenant, id);
  if (!dispute) throw new AppError('resource_not_found', { param: 'id', message: `No such dispute: ${id}.` });
  return dispute;
}

/** The tenant's disputes, newest first; 404 for a `startingAfter` that is not one of them. */
export async function listDisputes(db: Db, tenant: Tenant, filter: DisputeFilter): Promise<Page<DisputeRow>> {
  const rows = await findDisputes(db, tenant, filter);
  if (!rows) throw new AppError('resource_not_found', { param: 'startingAfter', message: `No such dispute: ${filter.startingAfter}.` });
  return toPage(rows, filter.limit);
}
