// A paid invoice of a link keeps the link true: one more completed payment and the amount
// collected, the link `Expired` once its uses are spent. It reacts to `invoice.paid` inside the
// paying transaction (events.reactToEvents, registered by the app), so the invoices never import
// the links. `maxUses` and `maxUsesPerCustomer` hold here, race-safely: the use is taken by a
// conditional UPDATE of the link's row, which serializes concurrent payments on PostgreSQL; a
// payment past either limit is refused and rolls back.
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import type { EventReactor } from '../events/event.service.js';
import { findLinkInvoice, markLinkInvoicePaid, paidCountOf, takeUse } from './link.repository.js';

const spent = (why: string) =>
  new AppError('invoice_not_payable', { message: `This invoice was made through a payment link that ${why}; it can no longer be paid.` });

/** Counts a paid invoice on its link, when it was made through one. */
export async function countLinkPayment(db: Db, clock: Clock, invoice: { id: number; merchant_id: number; livemode: boolean; total: string }): Promise<void> {
  const tenant = tenantOf(invoice);
  const record = await findLinkInvoice(db, tenant, invoice.id);
  if (!record) return;
  const now = clock.now();
  if (!(await markLinkInvoicePaid(db, tenant, invoice.id, now, invoice.total))) return;
  const link = await takeUse(db, record.link_id, invoice.total, now);
  if (!link) throw spent('has reached its limit of payments');
  if (link.max_uses_per_customer !== null && (await paidCountOf(db, link.id, record.payer_email)) > link.max_uses_per_customer) {
    throw spent('this payer has already used as often as it allows');
  }
}

/** The reactor the app registers: `invoice.paid` → `countLinkPayment`. */
export const linkPaymentReactor: EventReactor = async (db, clock, event) => {
  if (event.type === 'invoice.paid' && event.subject.kind === 'invoice') await countLinkPayment(db, clock, event.subject.invoice);
};
