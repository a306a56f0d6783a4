// The checkout session a Commerce payment runs through (origin `commerce`): opened by the flow
// itself for one payment of an invoice, never shown to the payer, and without `checkout.session.*`
// events. The bank transfer, a payment waiting in such a session, is in bank-transfer.ts.
import type { Trx } from '../../db/database.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import type { Tenant } from '../../shared/tenant.js';
import { insertSession, updateSession } from '../checkout/session.repository.js';

/** How long a card or wallet payment may wait for the payer (3-D Secure, a QR scan). */
export const PAYER_WAIT_MINUTES = 30;

/** What an invoice payment's backing session charges: an amount of the tenant's currency, and how. */
export interface BackingSessionTerms {
  amount: string;
  currency: string;
  captureMethod: 'automatic' | 'manual';
  /** The invoice paid; undefined when the session raises its own (a direct payment). */
  invoice: InvoiceRow | undefined;
  description: string | null;
  metadata: Record<string, string>;
  payer: { email: string | null; firstName: string | null; lastName: string | null; customerId: number | null };
  waitMs: number;
  /** Where a 3-D Secure challenge returns the payer (a direct payment's successUrl and cancelUrl); none by default. */
  returnUrls?: { success: string | null; cancel: string | null };
}

/** Opens the backing session one invoice payment runs through. */
export async function openBackingSession(trx: Trx, clock: Clock, tenant: Tenant, merchant: Merchant, terms: BackingSessionTerms): Promise<CheckoutSessionRow> {
  const now = clock.now();
  const id = `cs_${tenant.livemode ? 'live' : 'test'}_${randomToken(24)}`;
  return insertSession(trx, {
    id,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    client_secret_hash: hashSecret(`${id}_secret_${randomToken(24)}`),
    status: 'created',
    amount: terms.amount,
    currency: terms.currency,
    mode: 'embedded',
    payment_type: 'one_time',
    payment_status: 'unpaid',
    capture_method: terms.captureMethod,
    url: null,
    success_url: terms.returnUrls?.success ?? null,
    cancel_url: terms.returnUrls?.cancel ?? null,
    customer_email: terms.payer.email,
    customer_first_name: terms.payer.firstName,
    customer_last_name: terms.payer.lastName,
    customer_phone: null,
    notify_customer: false,
    send_receipt: merchant.send_checkout_receipts,
    notification_url: null,
    notification_secret: null,
    line_items: JSON.stringify([]),
    metadata: JSON.stringify(terms.metadata),
    allow_saved_cards: false,
    enable_click_to_pay: false,
    invoice_id: terms.invoice?.id ?? null,
    invoice_reference: terms.invoice?.reference ?? null,
    payment_option_group_id: null,
    subscription_plan_id: null,
    client_id: terms.payer.customerId,
    trial_days: null,
    description: terms.description,
    subscription_id: null,
    payment_id: null,
    created_at: now,
    expires_at: new Date(now.getTime() + terms.waitMs),
    completed_at: null,
    cancelled_at: null,
    expired_at: null,
    pays_invoice: terms.invoice !== undefined,
    origin: 'commerce',
  });
}

/** A direct payment's session now pays the invoice it raised at once (so the payment always has one). */
export async function attachRaisedInvoice(trx: Trx, session: CheckoutSessionRow, invoice: InvoiceRow): Promise<CheckoutSessionRow> {
  return (await updateSession(trx, { merchantId: session.merchant_id, livemode: session.livemode }, session.id, {
    pays_invoice: true,
    invoice_id: invoice.id,
    invoice_reference: invoice.reference,
  }))!;
}
