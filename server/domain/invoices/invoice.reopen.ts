// An invoice owed again: a dispute lost or accepted took back money that paid it.
import { Decimal } from 'decimal.js';
import type { Trx } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import { findInvoice, updateInvoice } from './invoice.repository.js';

/**
 * Puts `amount` back on a paid (or partially paid) invoice as owed: `amountPaid` is lowered by it,
 * and the invoice is `partially_paid`, or `pending` when nothing paid remains, so it can be paid
 * again. Answers whether it was reopened (an invoice in any other status is left as it is).
 */
export async function reopenInvoice(trx: Trx, tenant: Tenant, invoiceId: number, amount: string): Promise<boolean> {
  const invoice = await findInvoice(trx, tenant, { id: invoiceId }, { lock: true });
  if (!invoice || !['paid', 'partially_paid'].includes(invoice.status)) return false;
  const paid = Decimal.max(new Decimal(invoice.amount_paid).minus(amount), 0);
  await updateInvoice(trx, tenant, invoiceId, { amount_paid: paid.toFixed(), status: paid.isZero() ? 'pending' : 'partially_paid', paid_at: null });
  return true;
}
