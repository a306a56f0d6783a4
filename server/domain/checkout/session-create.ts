// Creating a checkout session, by creation rules 1-7 of the Checkout document: expiry (30 minutes
// by default, 10 minutes to 24 hours when given), the session-id placeholder, payer details,
// per-session webhooks and their secret, the merchant's notification settings as fallbacks, holds
// only where a card option can hold, paying an existing invoice, and subscription sessions.
import { findOwnCustomer } from '../customers/customer.service.js';
import { payPageUrl } from './hosted-page.js';
import { notifyPayer } from './receipts.js';
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow, SessionLineItem } from '../../db/tables/checkout-sessions.js';
import type { InvoiceRow } from '../../db/tables/invoices.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode, decimalToAmount, minorUnits } from '../../shared/money.js';
import { publicHttpsProblem } from '../../shared/public-url.js';
import type { Tenant } from '../../shared/tenant.js';
import { startTrialSubscription, type SubscriptionRequest, type SubscriptionSessionTerms, subscriptionSessionTerms } from '../billing/subscription-start.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { findInvoiceToPay } from '../invoices/invoice.service.js';
import { getMerchant, holdCapable } from '../merchants/merchant.service.js';
import { findOpenSessionOnInvoice, insertSession, type NewSession, updateSession } from './session.repository.js';
import { expireIfDue, sessionEvent } from './session.service.js';

const DEFAULT_LIFETIME_MINUTES = 30;
const MIN_LIFETIME_MINUTES = 10;
const MAX_LIFETIME_HOURS = 24;
// The name is exact; only the hex digits of the percent-encoding may be either case.
const PLACEHOLDER = /\{CHECKOUT_SESSION_ID\}|%7[Bb]CHECKOUT_SESSION_ID%7[Dd]/g;

/** A new session, as the merchant asks for it (amounts in the currency's units). */
export interface CreateSessionInput extends SubscriptionRequest {
  amount?: number | string | undefined;
  currency?: string | undefined;
  mode: 'hosted' | 'embedded';
  paymentType: 'oneTime' | 'subscription';
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
  customerEmail?: string | undefined;
  customerFirstName?: string | undefined;
  customerLastName?: string | undefined;
  customerPhone?: string | undefined;
  notifyCustomer?: boolean | undefined;
  sendReceipt?: boolean | undefined;
  notificationUrl?: string | undefined;
  notificationSecret?: string | undefined;
  lineItems?: SessionLineItem[] | undefined;
  metadata?: Record<string, string> | undefined;
  expiresAt?: string | undefined;
  allowSavedCards?: boolean | undefined;
  enableClickToPay?: boolean | undefined;
  invoiceId?: number | undefined;
  invoiceReference?: string | undefined;
  paymentOptionGroupId?: number | undefined;
  description?: string | undefined;
}

/** Server settings session creation reads. */
export interface SessionSettings {
  /** This server's public base URL, for the hosted page link. */
  publicBaseUrl: string;
  /** `TILL_ALLOW_LOOPBACK_WEBHOOKS` (development and tests): a test-mode notificationUrl may be loopback. */
  allowLoopbackWebhooks: boolean;
}

/** The session and what only the create answer shows. */
export interface CreatedSession {
  session: CheckoutSessionRow;
  clientSecret: string;
  /** Only when a notificationUrl was given without a secret. */
  generatedNotificationSecret: string | undefined;
  /** True when an open session on the same invoice was returned instead of a new one (rule 6). */
  reused: boolean;
}

function fail(param: string, message: string): never {
  throw new AppError('validation_error', { param, message });
}

/** What the session charges, and for what: an existing invoice (rule 6), a plan (rule 7), or the amount asked. */
interface Charge {
  invoice: InvoiceRow | undefined;
  terms: SubscriptionSessionTerms | undefined;
  currency: string;
  amount: string;
}

export async function createSession(
  db: Kysely<Database>,
  clock: Clock,
  settings: SessionSettings,
  tenant: Tenant,
  input: CreateSessionInput,
): Promise<CreatedSession> {
  const invoice = await invoiceToPay(db, tenant, input);
  if (invoice) {
    const open = await openSessionOnInvoice(db, clock, tenant, invoice.id);
    if (open) return open;
  }
  const charge = await chargeOf(db, clock.now(), tenant, input, invoice);
  const row = await newSessionRow(db, clock, settings, tenant, input, charge);
  if (charge.terms && charge.terms.trialDays > 0) return startTrial(db, clock, row.values, charge.terms.trialDays, row.secrets);
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
async function invoiceToPay(db: Kysely<Database>, tenant: Tenant, input: CreateSessionInput): Promise<InvoiceRow | undefined> {
  const paysInvoice = input.invoiceId !== undefined || input.invoiceReference !== undefined;
  if (!paysInvoice) return undefined;
  if (input.invoiceId !== undefined && input.invoiceReference !== undefined) fail('invoiceReference', 'Send either invoiceId or invoiceReference, not both.');
  if (input.lineItems !== undefined) fail('lineItems', 'lineItems cannot be sent with an invoice: the invoice sets what is paid.');
  if (input.paymentType !== 'oneTime') fail('paymentType', 'An existing invoice can be paid only by a oneTime session.');
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
async function chargeOf(db: Kysely<Database>, now: Date, tenant: Tenant, input: CreateSessionInput, invoice: InvoiceRow | undefined): Promise<Charge> {
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

/** The session's lines: those sent, or for a paid subscription session its plan; they must add up to the amount. */
function lineItemsOf(input: CreateSessionInput, charge: Charge): SessionLineItem[] {
  const { terms, currency, amount } = charge;
  const planLine = terms && terms.trialDays === 0 ? [{ name: terms.plan.name, quantity: 1, unitAmount: decimalToAmount(terms.plan.amount, currency) }] : [];
  const lineItems = input.lineItems ?? planLine;
  if (lineItems.length > 0) {
    const total = lineItems.reduce(
      (sum, item) => sum.plus(new Decimal(item.unitAmount.toString()).times(new Decimal(item.quantity.toString()))),
      new Decimal(0),
    );
    if (!total.toDecimalPlaces(minorUnits(currency)).equals(new Decimal(amount))) {
      fail('lineItems', `The line items add up to ${total.toFixed(minorUnits(currency))} but amount is ${amount}.`);
    }
  }
  return lineItems;
}

/** Rule 1: when the session expires. */
function expiryOf(input: CreateSessionInput, now: Date): Date {
  if (input.expiresAt === undefined) return new Date(now.getTime() + DEFAULT_LIFETIME_MINUTES * 60_000);
  const expiresAt = new Date(input.expiresAt);
  const ahead = expiresAt.getTime() - now.getTime();
  if (Number.isNaN(ahead) || ahead < MIN_LIFETIME_MINUTES * 60_000 || ahead > MAX_LIFETIME_HOURS * 3600_000) {
    fail('expiresAt', `expiresAt must be between ${MIN_LIFETIME_MINUTES} minutes and ${MAX_LIFETIME_HOURS} hours from now.`);
  }
  return expiresAt;
}

/** Rules 4 and 5: the session's own webhook URL (https, public) and the secret that signs what goes there. */
async function notificationOf(
  settings: SessionSettings,
  tenant: Tenant,
  input: CreateSessionInput,
): Promise<{ url: string | null; secret: string | null; generated: string | undefined }> {
  if (input.notificationUrl === undefined) return { url: null, secret: input.notificationSecret ?? null, generated: undefined };
  const problem = await publicHttpsProblem(input.notificationUrl, { allowLoopback: settings.allowLoopbackWebhooks && !tenant.livemode });
  if (problem) throw new AppError('parameter_invalid', { param: 'notificationUrl', message: `notificationUrl ${problem}.` });
  const generated = input.notificationSecret === undefined ? `whsec_${randomToken(32)}` : undefined;
  return { url: input.notificationUrl, secret: input.notificationSecret ?? generated ?? null, generated };
}

const resolveUrl = (id: string, url: string | undefined): string | null => (url === undefined ? null : url.replace(PLACEHOLDER, id));

/** The row of a new session, and the secrets only the create answer shows. */
async function newSessionRow(db: Kysely<Database>, clock: Clock, settings: SessionSettings, tenant: Tenant, input: CreateSessionInput, charge: Charge) {
  const now = clock.now();
  const { invoice, terms } = charge;
  const freeTrial = terms !== undefined && terms.trialDays > 0;
  const lineItems = lineItemsOf(input, charge);
  const expiresAt = expiryOf(input, now);
  const captureMethod = input.captureMethod ?? 'automatic';
  if (captureMethod === 'manual' && !holdCapable(await getMerchant(db, tenant.merchantId)))
    fail('captureMethod', 'None of your payment options can hold a card, so captureMethod manual is not available.');
  const notification = await notificationOf(settings, tenant, input);
  const id = `cs_${tenant.livemode ? 'live' : 'test'}_${randomToken(24)}`;
  const clientSecret = `${id}_secret_${randomToken(24)}`;
  const values: NewSession = {
    id,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    client_secret_hash: hashSecret(clientSecret),
    status: freeTrial ? 'completed' : 'created',
    amount: charge.amount,
    currency: charge.currency,
    mode: input.mode,
    payment_type: terms ? 'subscription' : 'one_time',
    payment_status: freeTrial ? 'no_payment_required' : 'unpaid',
    capture_method: captureMethod,
    url: input.mode === 'hosted' ? `${settings.publicBaseUrl}/pay/${id}` : null,
    success_url: resolveUrl(id, input.successUrl),
    cancel_url: resolveUrl(id, input.cancelUrl),
    customer_email: input.customerEmail ?? null,
    customer_first_name: input.customerFirstName ?? null,
    customer_last_name: input.customerLastName ?? null,
    customer_phone: input.customerPhone ?? null,
    // Unless asked, the merchant's settings (read as the row is inserted).
    notify_customer: input.notifyCustomer ?? null,
    send_receipt: input.sendReceipt ?? null,
    notification_url: notification.url,
    notification_secret: notification.secret,
    line_items: JSON.stringify(lineItems),
    metadata: JSON.stringify(input.metadata ?? {}),
    allow_saved_cards: input.allowSavedCards ?? false,
    enable_click_to_pay: input.enableClickToPay ?? false,
    invoice_id: invoice?.id ?? null,
    invoice_reference: invoice?.reference ?? null,
    payment_option_group_id: input.paymentOptionGroupId ?? null,
    subscription_plan_id: terms?.plan.id ?? null,
    client_id: input.clientId ?? null,
    trial_days: terms ? terms.trialDays : null,
    // Ignored when an existing invoice is paid (the invoice describes itself).
    description: invoice ? null : (input.description ?? null),
    subscription_id: null,
    payment_id: null,
    created_at: now,
    expires_at: expiresAt,
    completed_at: freeTrial ? now : null,
    cancelled_at: null,
    expired_at: null,
    pays_invoice: invoice !== undefined,
    // Kept only where rule 6 may hand the same session out again.
    client_secret: invoice ? clientSecret : null,
  };
  return { values, secrets: { clientSecret, generatedNotificationSecret: notification.generated } };
}

/** A free trial completes at creation: the session, its subscription and their events in one transaction. */
async function startTrial(
  db: Kysely<Database>,
  clock: Clock,
  values: NewSession,
  trialDays: number,
  secrets: { clientSecret: string; generatedNotificationSecret: string | undefined },
): Promise<CreatedSession> {
  const session = await db.transaction().execute(async (trx) => {
    const inserted = await insertSession(trx, values);
    const subscription = await startTrialSubscription(trx, clock, inserted, trialDays);
    const completed = (await updateSession(trx, { merchantId: inserted.merchant_id, livemode: inserted.livemode }, inserted.id, {
      subscription_id: subscription.id,
    }))!;
    await sessionEvent(trx, clock, 'checkout.session.completed', completed);
    return completed;
  });
  return { session, ...secrets, reused: false };
}
