// Creating a checkout session, by creation rules 1-7 of the Checkout document: its row
// (session-row.ts: expiry, the session-id placeholder, payer details, per-session webhooks and
// their secret), the merchant's notification settings as fallbacks, holds only where a card option
// can hold, paying an existing invoice, and subscription sessions.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode, minorUnits } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { startMeteredSubscription, startTrialSubscription, subscriptionSessionTerms } from '../billing/subscription-start.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { findInvoiceToPay } from '../invoices/invoice-paying.js';
import { payPageUrl } from './hosted-page.js';
import { notifyPayer } from './receipts.js';
import { type Charge, fail, newSessionRow, type SessionSecrets, type SessionSettings, type SessionToCreate } from './session-row.js';
import { findOpenSessionOnInvoice, insertSession, type NewSession, updateSession } from './session.repository.js';
import { expireIfDue, sessionEvent } from './session.service.js';

export type { SessionSettings, SessionToCreate };

/** The session and what only the create answer shows. */
export interface CreatedSession extends SessionSecrets {
  session: CheckoutSessionRow;
  /** True when an open session on the same invoice was returned instead of a new one (rule 6). */
  reused: boolean;
}

export async function createSession(
  db: Kysely<Database>,
  clock: Clock,
  settings: SessionSettings,
  tenant: Tenant,
  input: SessionToCreate,
): Promise<CreatedSession> {
  const invoice = await invoiceToPay(db, tenant, input);
  if (invoice) {
    const open = await openSessionOnInvoice(db, clock, tenant, invoice.id);
    if (open) return open;
  }
  const charge = await chargeOf(db, clock.now(), tenant, input, invoice);
  const row = await newSessionRow(db, clock, settings, tenant, input, charge);
  if (charge.terms && (charge.terms.trialDays > 0 || charge.terms.metered)) return startTrial(db, clock, row.values, charge.terms.trialDays, row.secrets);
  try {
    const session = await db.transaction().execute(async (trx) => {
      const inserted = await insertSession(trx, row.values);
      await notifyPayer(trx, clock, inserted, inserted.url === null ? null : payPageUrl(inserted.url, row.secrets.clientSecret));
      return inserted;
    });
    return { session, ...row.secrets, reused: false };
  } catch (error) {
    // Two creates raced on one invoice: the unique index let one through; answer with that one.
    if (invoice && isUniqueViolation(error, 'checkout_sessions_open_on_invoice')) {
      const open = await openSessionOnInvoice(db, clock, tenant, invoice.id);
      if (open) return open;
    }
    throw error;
  }
}

/** Rule 6: the existing invoice a session pays (by id or reference), checked against what else was sent. */
async function invoiceToPay(db: Kysely<Database>, tenant: Tenant, input: SessionToCreate): Promise<InvoiceRow | undefined> {
  const paysInvoice = input.invoiceId !== undefined || input.invoiceReference !== undefined;
  if (!paysInvoice) return undefined;
  if (input.invoiceId !== undefined && input.invoiceReference !== undefined) fail('invoiceReference', 'Send either invoiceId or invoiceReference, not both.');
  if (input.lineItems !== undefined) fail('lineItems', 'lineItems cannot be sent with an invoice: the invoice sets what is paid.');
  if (input.paymentType !== 'one_time') fail('paymentType', 'An existing invoice can be paid only by a oneTime session.');
  const invoice = await findInvoiceToPay(db, tenant, input);
  const due = amountDue(invoice).toFixed(minorUnits(invoice.currency));
  if (input.currency !== undefined && input.currency.toUpperCase() !== invoice.currency)
    fail('currency', `currency must match the invoice's (${invoice.currency}).`);
  if (input.amount !== undefined && !new Decimal(amountToDecimal(input.amount, invoice.currency)).equals(due))
    fail('amount', `amount must match the invoice's total due (${due} ${invoice.currency}).`);
  if (input.paymentOptionGroupId !== undefined && input.paymentOptionGroupId !== invoice.payment_option_group_id) {
    fail(
      'paymentOptionGroupId',
      invoice.payment_option_group_id === null
        ? 'This invoice has no payment option group; leave paymentOptionGroupId out.'
        : `paymentOptionGroupId must match the invoice's (${invoice.payment_option_group_id}).`,
    );
  }
  return invoice;
}

/**
 * The open session already paying an invoice, if any (rule 6: creating another returns it, with
 * its expiry). One whose time has passed is expired first and not returned.
 */
async function openSessionOnInvoice(db: Kysely<Database>, clock: Clock, tenant: Tenant, invoiceId: number): Promise<CreatedSession | undefined> {
  const open = await findOpenSessionOnInvoice(db, tenant, invoiceId);
  if (!open) return undefined;
  if (open.expires_at <= clock.now()) {
    await db.transaction().execute((trx) => expireIfDue(trx, clock, open));
    return undefined;
  }
  return { session: open, clientSecret: open.client_secret!, generatedNotificationSecret: undefined, reused: true };
}

/** What the session charges: the invoice's amount due, the plan's first period (rule 7), or the amount asked for (at least 1.00). */
async function chargeOf(db: Kysely<Database>, now: Date, tenant: Tenant, input: SessionToCreate, invoice: InvoiceRow | undefined): Promise<Charge> {
  const terms = input.paymentType === 'subscription' ? await subscriptionSessionTerms(db, now, tenant, input) : undefined;
  // A one-time session's customer (for saved cards) must be the caller's own, as a subscription session's is.
  if (!terms && input.clientId !== undefined && !(await findOwnCustomer(db, tenant, input.clientId)))
    fail('clientId', 'clientId must be one of your customers.');
  if (!invoice && !terms && input.amount === undefined)
    throw new AppError('parameter_missing', { param: 'amount', message: 'amount is required for a oneTime session.' });
  if (!invoice && !terms && input.currency === undefined)
    throw new AppError('parameter_missing', { param: 'currency', message: 'currency is required for a oneTime session.' });
  if (input.mode === 'hosted' && input.successUrl === undefined)
    throw new AppError('parameter_missing', { param: 'successUrl', message: 'A hosted session needs successUrl.' });
  const currency = terms?.currency ?? (invoice ? invoice.currency : currencyCode(input.currency!));
  const amount = terms?.amountDueNow ?? (invoice ? amountDue(invoice).toFixed(minorUnits(invoice.currency)) : amountToDecimal(input.amount!, currency));
  // (A subscription session's amount was checked against the plan; a free trial's is 0.)
  if (!terms && new Decimal(amount).lessThan(1))
    throw new AppError('amount_too_small', { param: 'amount', message: `amount must be at least 1.00 ${currency}.` });
  return { invoice, terms, currency, amount };
}

/**
 * A free trial, or a subscription on a Usage plan (trialDays 0: its usage is billed at each period's
 * end), completes at creation: the session, its subscription and their events in one transaction.
 */
async function startTrial(db: Kysely<Database>, clock: Clock, values: NewSession, trialDays: number, secrets: SessionSecrets): Promise<CreatedSession> {
  const session = await db.transaction().execute(async (trx) => {
    const inserted = await insertSession(trx, values);
    const subscription = trialDays > 0 ? await startTrialSubscription(trx, clock, inserted, trialDays) : await startMeteredSubscription(trx, clock, inserted);
    const completed = (await updateSession(trx, { merchantId: inserted.merchant_id, livemode: inserted.livemode }, inserted.id, {
      subscription_id: subscription.id,
    }))!;
    await sessionEvent(trx, clock, 'checkout.session.completed', completed);
    return completed;
  });
  return { session, ...secrets, reused: false };
}
