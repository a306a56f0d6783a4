import { Decimal } from 'decimal.js';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { writeEvent } from '../events/event.service.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import type { Merchant } from '../../db/tables/merchants.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { findInvoiceToPay } from '../invoices/invoice.service.js';
import type { InvoiceRow } from '../../db/tables/payments.js';
import { isUniqueViolation } from '../../db/errors.js';
import { closeOpenChallenge } from '../payments/three-d-secure.repository.js';
import { amountToDecimal, decimalToAmount, minorUnits } from '../../shared/money.js';
import { startTrialSubscription, subscriptionSessionTerms } from '../subscriptions/subscription-session.js';
import { publicHttpsProblem } from '../../shared/public-url.js';
import { endLiveQr } from '../payments/wallet.service.js';
import { type DueScope, GLOBAL_SCOPE, inScope, scopedClock } from '../sandbox/scope.js';
import { sessionEventObject } from './session.mapper.js';
import { type Caller, findSession } from './session.repository.js';
import type { CheckoutSessionRow, CheckoutSessionsTable, SessionLineItem } from '../../db/tables/checkout-sessions.js';

export type { Caller };

type CreateRequest = components['schemas']['CheckoutSessionCreateRequest'];

/** Unpaid sessions, which expiry and cancel act on. */
export const OPEN_STATUSES = ['created', 'payment_pending', 'processing'] as const;
const DEFAULT_LIFETIME_MINUTES = 30;
const MIN_LIFETIME_MINUTES = 10;
const MAX_LIFETIME_HOURS = 24;
// The name is exact; only the hex digits of the percent-encoding may be either case.
const PLACEHOLDER = /\{CHECKOUT_SESSION_ID\}|%7[Bb]CHECKOUT_SESSION_ID%7[Dd]/g;

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

function resolveUrls(id: string, url: string | undefined): string | null {
  return url === undefined ? null : url.replace(PLACEHOLDER, id);
}

/**
 * Creates a checkout session, by creation rules 1-7 of the Checkout document:
 * expiry (30 minutes by default, 10 minutes to 24 hours when given), the session-id placeholder,
 * payer details, per-session webhooks and their secret, the merchant's notification settings as
 * fallbacks, holds only where a card option can hold, and the invoice and subscription rules.
 */
/** Server settings session creation reads. */
export interface SessionSettings {
  /** This server's public base URL, for the hosted page link. */
  publicBaseUrl: string;
  /** `TILL_ALLOW_LOOPBACK_WEBHOOKS` (development and tests): a test-mode notificationUrl may be loopback. */
  allowLoopbackWebhooks: boolean;
}

export async function createSession(db: Kysely<Database>, clock: Clock, settings: SessionSettings, caller: Caller, input: CreateRequest): Promise<CreatedSession> {
  const { publicBaseUrl } = settings;
  const now = clock.now();
  const merchant = await db.selectFrom('merchants').selectAll().where('id', '=', caller.merchantId).executeTakeFirstOrThrow();

  // Rule 6: paying an existing invoice.
  const paysInvoice = input.invoiceId !== undefined || input.invoiceReference !== undefined;
  if (input.invoiceId !== undefined && input.invoiceReference !== undefined) fail('invoiceReference', 'Send either invoiceId or invoiceReference, not both.');
  if (paysInvoice && input.lineItems !== undefined) fail('lineItems', 'lineItems cannot be sent with an invoice: the invoice sets what is paid.');
  if (paysInvoice && input.paymentType !== 'oneTime') fail('paymentType', 'An existing invoice can be paid only by a oneTime session.');
  let invoice: InvoiceRow | undefined;
  let due: string | undefined;
  if (paysInvoice) {
    invoice = await findInvoiceToPay(db, caller, input);
    due = amountDue(invoice).toFixed(minorUnits(invoice.currency));
    if (input.currency !== undefined && input.currency.toUpperCase() !== invoice.currency) fail('currency', `currency must match the invoice's (${invoice.currency}).`);
    if (input.amount !== undefined && !new Decimal(amountToDecimal(input.amount, invoice.currency)).equals(due)) fail('amount', `amount must match the invoice's total due (${due} ${invoice.currency}).`);
    if (input.paymentOptionGroupId !== undefined && input.paymentOptionGroupId !== invoice.payment_option_group_id) {
      fail('paymentOptionGroupId', invoice.payment_option_group_id === null ? 'This invoice has no payment option group; leave paymentOptionGroupId out.' : `paymentOptionGroupId must match the invoice's (${invoice.payment_option_group_id}).`);
    }
    const open = await openSessionOnInvoice(db, clock, caller, invoice.id);
    if (open) return open;
  }

  // Rule 7: a subscription session starts a subscription on one of the caller's plans for one of
  // its customers; amount and currency come from the plan, and a free trial pays nothing now.
  const terms = input.paymentType === 'subscription' ? await subscriptionSessionTerms(db, caller, input) : undefined;
  const freeTrial = terms !== undefined && terms.trialDays > 0;

  if (!invoice && !terms && input.amount === undefined) throw new AppError('parameter_missing', { param: 'amount', message: 'amount is required for a oneTime session.' });
  if (!invoice && !terms && input.currency === undefined) throw new AppError('parameter_missing', { param: 'currency', message: 'currency is required for a oneTime session.' });
  if (input.mode === 'hosted' && input.successUrl === undefined) throw new AppError('parameter_missing', { param: 'successUrl', message: 'A hosted session needs successUrl.' });
  const currency = terms?.currency ?? (invoice ? invoice.currency : input.currency!.toUpperCase());
  const amount = terms?.amountDueNow ?? due ?? amountToDecimal(input.amount!, currency);
  // (A subscription session's amount was checked against the plan; a free trial's is 0.)
  if (!terms && new Decimal(amount).lessThan(1)) throw new AppError('amount_too_small', { param: 'amount', message: `amount must be at least 1.00 ${currency}.` });

  // A paid subscription session's invoice shows the plan when no lines were sent.
  const planLine = terms && !freeTrial ? [{ name: terms.plan.name, quantity: 1, unitAmount: decimalToAmount(terms.plan.amount, currency) }] : [];
  const lineItems = (input.lineItems ?? planLine) as SessionLineItem[];
  if (lineItems.length > 0) {
    const total = lineItems.reduce((sum, item) => sum.plus(new Decimal(item.unitAmount.toString()).times(new Decimal(item.quantity.toString()))), new Decimal(0));
    if (!total.toDecimalPlaces(minorUnits(currency)).equals(new Decimal(amount))) {
      fail('lineItems', `The line items add up to ${total.toFixed(minorUnits(currency))} but amount is ${amount}.`);
    }
  }

  // Rule 1: expiry.
  let expiresAt = new Date(now.getTime() + DEFAULT_LIFETIME_MINUTES * 60_000);
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt);
    const ahead = expiresAt.getTime() - now.getTime();
    if (Number.isNaN(ahead) || ahead < MIN_LIFETIME_MINUTES * 60_000 || ahead > MAX_LIFETIME_HOURS * 3600_000) {
      fail('expiresAt', `expiresAt must be between ${MIN_LIFETIME_MINUTES} minutes and ${MAX_LIFETIME_HOURS} hours from now.`);
    }
  }

  // Holds need a card option able to hold a card.
  const captureMethod = input.captureMethod ?? 'automatic';
  if (captureMethod === 'manual' && !holdCapable(merchant)) {
    fail('captureMethod', 'None of your payment options can hold a card, so captureMethod manual is not available.');
  }

  // Rules 4 and 5: per-session webhooks and their secret.
  if (input.notificationUrl !== undefined) {
    const problem = await publicHttpsProblem(input.notificationUrl, { allowLoopback: settings.allowLoopbackWebhooks && !caller.livemode });
    if (problem) throw new AppError('parameter_invalid', { param: 'notificationUrl', message: `notificationUrl ${problem}.` });
  }
  const generatedNotificationSecret = input.notificationUrl !== undefined && input.notificationSecret === undefined ? `whsec_${randomToken(32)}` : undefined;

  const id = `cs_${caller.livemode ? 'live' : 'test'}_${randomToken(24)}`;
  const clientSecret = `${id}_secret_${randomToken(24)}`;
  const row: Insertable<CheckoutSessionsTable> = {
      id,
      merchant_id: caller.merchantId,
      livemode: caller.livemode,
      client_secret_hash: hashSecret(clientSecret),
      status: freeTrial ? 'completed' : 'created',
      amount,
      currency,
      mode: input.mode,
      payment_type: terms ? 'subscription' : 'one_time',
      payment_status: freeTrial ? 'no_payment_required' : 'unpaid',
      capture_method: captureMethod,
      url: input.mode === 'hosted' ? `${publicBaseUrl}/pay/${id}` : null,
      success_url: resolveUrls(id, input.successUrl),
      cancel_url: resolveUrls(id, input.cancelUrl),
      customer_email: input.customerEmail ?? null,
      customer_first_name: input.customerFirstName ?? null,
      customer_last_name: input.customerLastName ?? null,
      customer_phone: input.customerPhone ?? null,
      notify_customer: input.notifyCustomer ?? merchant.message_checkout_customers,
      send_receipt: input.sendReceipt ?? merchant.send_checkout_receipts,
      notification_url: input.notificationUrl ?? null,
      notification_secret: input.notificationSecret ?? generatedNotificationSecret ?? null,
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
  if (terms && freeTrial) {
    // A free trial completes at creation: the session, its subscription and their events in one transaction.
    const session = await db.transaction().execute(async (trx) => {
      const inserted = await trx.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow();
      const completed = await startTrialSubscription(trx, clock, inserted, terms.trialDays);
      await writeEvent(trx, clock, { merchantId: completed.merchant_id, livemode: completed.livemode, type: 'checkout.session.completed', object: sessionEventObject(completed), sessionId: completed.id });
      return completed;
    });
    return { session, clientSecret, generatedNotificationSecret, reused: false };
  }
  try {
    const session = await db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow();
    return { session, clientSecret, generatedNotificationSecret, reused: false };
  } catch (error) {
    // Two creates raced on one invoice: the unique index let one through; answer with that one.
    if (invoice && isUniqueViolation(error, 'checkout_sessions_open_on_invoice')) {
      const open = await openSessionOnInvoice(db, clock, caller, invoice.id);
      if (open) return open;
    }
    throw error;
  }
}

/**
 * The open session already paying an invoice, if any (creation rule 6: creating another returns
 * it, with its expiry). One whose time has passed is expired first and not returned.
 */
async function openSessionOnInvoice(db: Kysely<Database>, clock: Clock, caller: Caller, invoiceId: number): Promise<CreatedSession | undefined> {
  const open = await db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('merchant_id', '=', caller.merchantId)
    .where('livemode', '=', caller.livemode)
    .where('invoice_id', '=', invoiceId)
    .where('pays_invoice', '=', true)
    .where('status', 'in', [...OPEN_STATUSES])
    .executeTakeFirst();
  if (!open) return undefined;
  if (isDue(open, clock.now())) {
    await db.transaction().execute((trx) => expireIfDue(trx, clock, open));
    return undefined;
  }
  return { session: open, clientSecret: open.client_secret!, generatedNotificationSecret: undefined, reused: true };
}

/** Whether any enabled card option of the merchant can hold a card. */
export const holdCapable = (merchant: Merchant): boolean => merchant.payment_options.some((o) => o.enabled && o.canHold && o.method === 'CreditCard');

/** Whether an unpaid session's time has passed. */
const isDue = (session: CheckoutSessionRow, now: Date) => (OPEN_STATUSES as readonly string[]).includes(session.status) && session.expires_at <= now;

/**
 * Marks one unpaid session expired if its time has passed, writing `checkout.session.expired`.
 * The UPDATE only matches an unpaid session, so whoever gets there first (the job, a read, a
 * cancel) writes the one event; the others read the result. An open 3-D Secure challenge ends
 * with the session (its payment fails, `payment.failed`): an expired session cannot be paid.
 */
export async function expireIfDue(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow): Promise<{ session: CheckoutSessionRow; changed: boolean }> {
  const now = clock.now();
  if (!isDue(session, now)) return { session, changed: false };
  const unpaid = await trx
    .updateTable('checkout_sessions')
    .set({ status: 'expired', expired_at: now })
    .where('id', '=', session.id)
    .where('status', 'in', [...OPEN_STATUSES])
    .returningAll()
    .executeTakeFirst();
  if (!unpaid) return { session: await trx.selectFrom('checkout_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow(), changed: false };
  // A live wallet QR code expires with its session; an open 3-D Secure challenge ends with it.
  let expired = (await endLiveQr(trx, clock, unpaid, 'expired')) ? await forgetPayment(trx, unpaid) : unpaid;
  if (await closeOpenChallenge(trx, clock, expired.id, 'expired')) expired = { ...expired, payment_id: null };
  await writeEvent(trx, clock, { merchantId: expired.merchant_id, livemode: expired.livemode, type: 'checkout.session.expired', object: sessionEventObject(expired), sessionId: expired.id });
  return { session: expired, changed: true };
}

/** An open session whose wallet payment ended unpaid no longer points at it. */
const forgetPayment = (trx: Transaction<Database>, session: CheckoutSessionRow) =>
  trx.updateTable('checkout_sessions').set({ payment_status: 'unpaid', payment_id: null }).where('id', '=', session.id).returningAll().executeTakeFirstOrThrow();

/** The caller's session in the key's mode, with expiry applied; 404 for anyone else's. A plain read unless it falls due. */
export async function getSession(db: Kysely<Database>, clock: Clock, caller: Caller, id: string): Promise<CheckoutSessionRow> {
  const session = await findSession(db, caller, id);
  if (!isDue(session, clock.now())) return session;
  return db.transaction().execute(async (trx) => (await expireIfDue(trx, clock, session)).session);
}

/**
 * Cancels an unpaid session: 204, and `checkout.session.cancelled`. A completed session is
 * refused (refund it instead); a cancelled or expired one is left as it is, with no second event.
 */
export async function cancelSession(db: Kysely<Database>, clock: Clock, caller: Caller, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { session } = await expireIfDue(trx, clock, await findSession(trx, caller, id, { lock: true }));
    if (session.status === 'completed') throw new AppError('session_already_completed');
    if (session.status === 'cancelled' || session.status === 'expired') return;
    // A live wallet QR code is withdrawn, and an unpaid invoice the session itself raised is
    // cancelled (an existing invoice the session was paying is left as it was).
    const withdrawn = await endLiveQr(trx, clock, session, 'withdrawn');
    await trx
      .updateTable('invoices')
      .set({ status: 'cancelled' })
      .where('session_id', '=', session.id)
      .where('merchant_id', '=', session.merchant_id)
      .where('livemode', '=', session.livemode)
      .where('status', 'in', ['pending', 'sent'])
      .execute();
    const cancelled = await trx
      .updateTable('checkout_sessions')
      .set({ status: 'cancelled', cancelled_at: clock.now(), ...(withdrawn ? { payment_status: 'unpaid', payment_id: null } : {}) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeEvent(trx, clock, { merchantId: cancelled.merchant_id, livemode: cancelled.livemode, type: 'checkout.session.cancelled', object: sessionEventObject(cancelled), sessionId: cancelled.id });
  });
}

/** Open sessions of a scope: the ones the expiry job looks at. */
const openSessions = (db: Kysely<Database>, scope: DueScope) => db.selectFrom('checkout_sessions').where('status', 'in', [...OPEN_STATUSES]).where(inScope(scope, 'checkout_sessions'));

/**
 * The expiry job: every unpaid session of the scope whose time has passed (by the scope's clock)
 * becomes `expired`, with one event each.
 */
export async function expireDueSessions(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const due = await openSessions(db, scope).selectAll().where('expires_at', '<=', scoped.now()).orderBy('expires_at').limit(batch).execute();
  let expired = 0;
  for (const session of due) {
    if ((await db.transaction().execute((trx) => expireIfDue(trx, scoped, session))).changed) expired++;
  }
  return expired;
}

/** When the next open session of the scope expires, after `after` (for the sandbox clock). */
export async function nextSessionExpiry(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await openSessions(db, scope).select((eb) => eb.fn.min('expires_at').as('at')).where('expires_at', '>', after).executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
