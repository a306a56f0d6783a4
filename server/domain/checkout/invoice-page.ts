// The hosted invoice page (`/invoice/{identifier}`): what a payer sees of an invoice, read by its
// public identifier alone (the secret part of the invoice's link), and the hosted checkout session
// that pays it. One page for both interfaces: the Commerce `paymentUrl` and the Checkout
// `hostedUrl` of an invoice both lead here.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { findInvoiceByIdentifier } from '../invoices/invoice.repository.js';
import { PAYABLE_STATUSES } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { payPageUrl } from './hosted-page.js';
import { type SessionSettings, createSession } from './session-create.js';

/** How the page presents the invoice: payable, or an end (or a wait) that shows no payment. */
export type InvoicePageState = 'payable' | 'paid' | 'cancelled' | 'expired' | 'not_yet_valid';

/** The ways the page offers to pay, from the merchant's enabled options for the invoice's currency. */
export type InvoicePageMethod = 'card' | 'wallet:qr';

export interface HostedInvoice {
  invoice: InvoiceRow;
  merchant: Merchant;
  state: InvoicePageState;
  methods: InvoicePageMethod[];
  /** The invoice's own clock (the sandbox clock in test mode). */
  now: Date;
}

function stateOf(invoice: InvoiceRow, now: Date): InvoicePageState {
  if (invoice.status === 'paid') return 'paid';
  if (invoice.status === 'cancelled') return 'cancelled';
  // The expiry job may not have run yet: a validity period that has passed is an end already.
  if (invoice.status === 'expired' || (invoice.valid_to !== null && invoice.valid_to <= now)) return 'expired';
  if (invoice.valid_from !== null && invoice.valid_from > now) return 'not_yet_valid';
  return (PAYABLE_STATUSES as readonly string[]).includes(invoice.status) ? 'payable' : 'cancelled';
}

function methodsOf(invoice: InvoiceRow, merchant: Merchant): InvoicePageMethod[] {
  const options = merchant.payment_options.filter((o) => o.enabled && (!o.currencies || o.currencies.includes(invoice.currency)));
  const methods: InvoicePageMethod[] = [];
  if (options.some((o) => o.method === 'CreditCard')) methods.push('card');
  if (options.some((o) => o.method === 'GatewayWallet')) methods.push('wallet:qr');
  return methods;
}

/** The page of an invoice, or undefined when there is none by that identifier, or only a draft (a draft is not issued). */
export async function hostedInvoice(db: Db, clock: Clock, identifier: string): Promise<HostedInvoice | undefined> {
  const invoice = await findInvoiceByIdentifier(db, identifier);
  if (!invoice || invoice.status === 'draft') return undefined;
  const now = (await tenantClock(db, clock, tenantOf(invoice))).now();
  const merchant = await getMerchant(db, invoice.merchant_id);
  return { invoice, merchant, state: stateOf(invoice, now), methods: methodsOf(invoice, merchant), now };
}

/** A merchant's return address, when it is one a page may link to (http or https: never `javascript:` or `data:`). */
export function webAddress(url: string | null): string | null {
  if (!url) return null;
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** The address of the invoice's page. */
export const invoicePageUrl = (publicBaseUrl: string, identifier: string): string => `${publicBaseUrl}/invoice/${identifier}`;

/**
 * The hosted checkout page that pays what is due on the invoice, with the chosen method first,
 * and its client secret in the fragment (a path on this server). Paid, the payer goes on to the
 * invoice's `successUrl`, or back to the invoice page; turning back returns to the invoice page.
 * An open session already paying the invoice (rule 6 of session creation) is reused. Undefined
 * when the invoice cannot be paid now (the caller shows its page again, which says why).
 */
export async function checkoutForInvoice(
  db: Kysely<Database>,
  clock: Clock,
  settings: SessionSettings,
  identifier: string,
  method: InvoicePageMethod,
): Promise<string | undefined> {
  const page = await hostedInvoice(db, clock, identifier);
  if (!page || page.state !== 'payable' || !page.methods.includes(method)) return undefined;
  const back = invoicePageUrl(settings.publicBaseUrl, page.invoice.identifier);
  const { session, clientSecret } = await createSession(db, clock, settings, tenantOf(page.invoice), {
    mode: 'hosted',
    paymentType: 'one_time',
    invoiceId: page.invoice.id,
    successUrl: webAddress(page.invoice.success_url) ?? back,
    cancelUrl: back,
  });
  const embedded = session.mode === 'embedded';
  const query = new URLSearchParams({ ...(embedded ? { embed: '1' } : {}), method });
  return payPageUrl(`/pay/${session.id}?${query}`, clientSecret);
}
