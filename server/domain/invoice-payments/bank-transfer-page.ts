// The page a bank transfer sends its payer to (`approvalAction` `Redirect`): the instructions of
// one bank-transfer payment of an invoice, found by the invoice's public identifier and the
// payment's id together (the identifier is what keeps the page from being guessed, as for the
// invoice's own page).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { getInvoiceByIdentifier } from '../invoices/invoice.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import type { BankTransferInstructions } from './bank-transfer.js';
import { getPaymentDetails } from './payment-details.js';

/** Where the transfer stands: still awaited (with its instructions), received, or no longer possible. */
export type BankTransferState = 'waiting' | 'received' | 'ended';

export interface BankTransferPage {
  merchant: Merchant;
  invoice: InvoiceRow;
  payment: PaymentRow;
  state: BankTransferState;
  /** Present while the transfer is awaited. */
  instructions: BankTransferInstructions | null;
}

const RECEIVED: readonly string[] = ['succeeded', 'captured', 'partially_refunded', 'refunded', 'pending_reversal'];

/** A lookup that found nothing answers undefined; any other failure goes on. */
function unlessNotFound(error: unknown): undefined {
  if (error instanceof AppError && (error.code === 'resource_not_found' || error.code === 'invoice_not_found')) return undefined;
  throw error;
}

/** The bank-transfer payment `paymentId` of the invoice `identifier`, as its page shows it; undefined when there is no such pair. */
export async function bankTransferPage(db: Kysely<Database>, clock: Clock, identifier: string, paymentId: number): Promise<BankTransferPage | undefined> {
  const invoice = await getInvoiceByIdentifier(db, identifier).catch(unlessNotFound);
  if (!invoice) return undefined;
  const details = await getPaymentDetails(db, clock, tenantOf(invoice), paymentId).catch(unlessNotFound);
  if (!details || details.invoice?.id !== invoice.id || details.payment.method_type !== 'bank_transfer') return undefined;
  const { payment, action } = details;
  const state: BankTransferState = action.type === 'bank_transfer' ? 'waiting' : RECEIVED.includes(payment.status) ? 'received' : 'ended';
  return {
    merchant: await getMerchant(db, invoice.merchant_id),
    invoice: details.invoice,
    payment,
    state,
    instructions: action.type === 'bank_transfer' ? action.instructions : null,
  };
}
