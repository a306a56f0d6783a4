// A paid invoice of a link keeps the link true: one more completed payment and the amount
// collected, the link `Expired` once its uses are spent; a refund of one of its payments comes off
// the amount collected, which is net of refunds. It reacts to `invoice.paid` and `payment.refunded`
// inside the paying or refunding transaction (events.reactToEvents, registered by the app), so the
// invoices and payments never import the links. `maxUses` and `maxUsesPerCustomer` hold here, race-safely: the use is taken by a
// conditional UPDATE of the link's row, which serializes concurrent payments on PostgreSQL; a
// payment past either limit is refused and rolls back.
import { Decimal } from 'decimal.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import type { EventReactor } from '../events/event.service.js';
import { findLinkInvoice, markLinkInvoicePaid, paidCountOf, takeBackCollected, takeUse } from './link.repository.js';

const spent = (why: string) =>
  new AppError('invoice_not_payable', { message: `This invoice was made through a payment link that ${why}; it can no longer be paid.` });

/**
 * Counts a paid invoice on its link, when it was made through one: the amount collected grows by
 * its total less what was refunded of its part payments before it was paid in full.
 */
export async function countLinkPayment(
  db: Db,
  clock: Clock,
  invoice: { id: number; merchant_id: number; livemode: boolean; total: string; amount_refunded?: string },
): Promise<void> {
  const tenant = tenantOf(invoice);
  const record = await findLinkInvoice(db, tenant, invoice.id);
  if (!record) return;
  const now = clock.now();
  if (!(await markLinkInvoicePaid(db, tenant, invoice.id, now, invoice.total))) return;
  // The link was deleted: the invoice is paid like any other, nothing is left to count it on.
  if (record.link_id === null) return;
  const collected = new Decimal(invoice.total).minus(invoice.amount_refunded ?? 0).toFixed();
  const link = await takeUse(db, record.link_id, collected, now);
  if (!link) throw spent('has reached its limit of payments');
  if (link.max_uses_per_customer !== null && (await paidCountOf(db, link.id, record.payer_email)) > link.max_uses_per_customer) {
    throw spent('this payer has already used as often as it allows');
  }
}

/**
 * A refund of `amount` of a payment comes off its link's amount collected, when the payment paid an
 * invoice made through a link and that invoice has been counted (paid in full); a refund before
 * then is left out when it is counted.
 */
export async function countLinkRefund(
  db: Db,
  clock: Clock,
  payment: { invoice_id: number | null; merchant_id: number; livemode: boolean },
  amount: string,
): Promise<void> {
  if (payment.invoice_id === null) return;
  const record = await findLinkInvoice(db, tenantOf(payment), payment.invoice_id);
  if (record?.paid_at && record.link_id !== null) await takeBackCollected(db, record.link_id, amount, clock.now());
}

/** The reactor the app registers: `invoice.paid` → `countLinkPayment`, `payment.refunded` → `countLinkRefund`. */
export const linkPaymentReactor: EventReactor = async (db, clock, event) => {
  if (event.type === 'invoice.paid' && event.subject.kind === 'invoice') await countLinkPayment(db, clock, event.subject.invoice);
  if (event.type === 'payment.refunded' && event.subject.kind === 'payment' && event.subject.refund)
    await countLinkRefund(db, clock, event.subject.payment, event.subject.refund.amount);
};
