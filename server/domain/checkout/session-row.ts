// The row of a new checkout session from what the merchant asked for, by creation rules 1, 4 and 5
// of the Checkout document: the expiry (30 minutes by default, 10 minutes to 24 hours when given),
// the session-id placeholder in its URLs, its lines, its own webhook URL and the secret that signs
// what goes there, and the payer's details.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SessionLineItem } from './session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { decimalToAmount, minorUnits } from '../../shared/money.js';
import { publicHttpsProblem } from '../../shared/public-url.js';
import type { Tenant } from '../../shared/tenant.js';
import type { SubscriptionRequest, SubscriptionSessionTerms } from '../billing/subscription-start.js';
import { getMerchant, holdCapable } from '../merchants/merchant.service.js';
import type { NewSession } from './session.repository.js';

const DEFAULT_LIFETIME_MINUTES = 30;
const MIN_LIFETIME_MINUTES = 10;
const MAX_LIFETIME_HOURS = 24;
// The name is exact; only the hex digits of the percent-encoding may be either case.
const PLACEHOLDER = /\{CHECKOUT_SESSION_ID\}|%7[Bb]CHECKOUT_SESSION_ID%7[Dd]/g;

/**
 * A new session as the merchant asks for it: amounts in the currency's units as exact decimal text,
 * the expiry as a Date, the payment type in the stored spelling.
 */
export interface SessionToCreate extends SubscriptionRequest {
  amount?: string | undefined;
  currency?: string | undefined;
  mode: 'hosted' | 'embedded';
  paymentType: 'one_time' | 'subscription';
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
  expiresAt?: Date | undefined;
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

/** What the session charges, and for what: an existing invoice (rule 6), a plan (rule 7), or the amount asked. */
export interface Charge {
  invoice: InvoiceRow | undefined;
  terms: SubscriptionSessionTerms | undefined;
  currency: string;
  amount: string;
}

/** A 400 `validation_error` naming the field. */
export function fail(param: string, message: string): never {
  throw new AppError('validation_error', { param, message });
}

/** The session's lines: those sent, or for a paid subscription session its plan; they must add up to the amount. */
function lineItemsOf(input: SessionToCreate, charge: Charge): SessionLineItem[] {
  const { terms, currency, amount } = charge;
  const planLine =
    terms && terms.trialDays === 0 && !terms.metered ? [{ name: terms.plan.name, quantity: 1, unitAmount: decimalToAmount(terms.plan.amount, currency) }] : [];
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
function expiryOf(input: SessionToCreate, now: Date): Date {
  if (input.expiresAt === undefined) return new Date(now.getTime() + DEFAULT_LIFETIME_MINUTES * 60_000);
  const expiresAt = input.expiresAt;
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
  input: SessionToCreate,
): Promise<{ url: string | null; secret: string | null; generated: string | undefined }> {
  if (input.notificationUrl === undefined) return { url: null, secret: input.notificationSecret ?? null, generated: undefined };
  const problem = await publicHttpsProblem(input.notificationUrl, { allowLoopback: settings.allowLoopbackWebhooks && !tenant.livemode });
  if (problem) throw new AppError('parameter_invalid', { param: 'notificationUrl', message: `notificationUrl ${problem}.` });
  const generated = input.notificationSecret === undefined ? `whsec_${randomToken(32)}` : undefined;
  return { url: input.notificationUrl, secret: input.notificationSecret ?? generated ?? null, generated };
}

const resolveUrl = (id: string, url: string | undefined): string | null => (url === undefined ? null : url.replace(PLACEHOLDER, id));

/** captureMethod manual (a hold) needs one of the merchant's payment options that can hold a card. */
async function captureMethodOf(db: Kysely<Database>, tenant: Tenant, input: SessionToCreate): Promise<'automatic' | 'manual'> {
  const captureMethod = input.captureMethod ?? 'automatic';
  if (captureMethod === 'manual' && !holdCapable(await getMerchant(db, tenant.merchantId)))
    fail('captureMethod', 'None of your payment options can hold a card, so captureMethod manual is not available.');
  return captureMethod;
}

/** The secrets of a new session that only the create answer shows. */
export interface SessionSecrets {
  clientSecret: string;
  /** Only when a notificationUrl was given without a secret. */
  generatedNotificationSecret: string | undefined;
}

/** The row of a new session, and the secrets only the create answer shows. */
export async function newSessionRow(
  db: Kysely<Database>,
  clock: Clock,
  settings: SessionSettings,
  tenant: Tenant,
  input: SessionToCreate,
  charge: Charge,
): Promise<{ values: NewSession; secrets: SessionSecrets }> {
  const now = clock.now();
  const lineItems = lineItemsOf(input, charge);
  const expiresAt = expiryOf(input, now);
  const captureMethod = await captureMethodOf(db, tenant, input);
  const notification = await notificationOf(settings, tenant, input);
  const id = `cs_${tenant.livemode ? 'live' : 'test'}_${randomToken(24)}`;
  const clientSecret = `${id}_secret_${randomToken(24)}`;
  const made = { id, clientSecret, now, expiresAt, captureMethod, lineItems, notification };
  return { values: sessionValues(made, settings, tenant, input, charge), secrets: { clientSecret, generatedNotificationSecret: notification.generated } };
}

/** What newSessionRow decided before the row is written down. */
interface Made {
  id: string;
  clientSecret: string;
  now: Date;
  expiresAt: Date;
  captureMethod: 'automatic' | 'manual';
  lineItems: SessionLineItem[];
  notification: { url: string | null; secret: string | null };
}

/** The new session's columns. */
function sessionValues(made: Made, settings: SessionSettings, tenant: Tenant, input: SessionToCreate, charge: Charge): NewSession {
  const { id, clientSecret, now, expiresAt, captureMethod, lineItems, notification } = made;
  const { invoice, terms } = charge;
  // A free trial or a Usage plan: nothing to pay now, the session completes at creation.
  const freeTrial = terms !== undefined && (terms.trialDays > 0 || terms.metered);
  return {
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
}
