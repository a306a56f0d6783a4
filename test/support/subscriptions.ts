// Billing through the domain services on a test database of its own (no server, no HTTP), for the
// unit tests of the billing rules: a merchant, its plans and customers, and subscriptions started as
// checkout starts them (a subscription session created, a test card tokenized on it, the session
// confirmed), all on the test's clock. The rules are then called directly on what is stored.
import { afterAll, beforeAll } from 'vitest';
import type { Plan, PlanInterval } from '../../server/domain/catalog/catalog.tables.js';
import type { SubscriptionDetails } from '../../server/domain/billing/subscription.tables.js';
import { getSubscription } from '../../server/domain/billing/subscription.service.js';
import { createPlan, createProduct } from '../../server/domain/catalog/catalog.service.js';
import { confirmSession, tokenizeCard } from '../../server/domain/checkout/confirm.js';
import { createSession } from '../../server/domain/checkout/session-create.js';
import { findSession } from '../../server/domain/checkout/session.service.js';
import { createCustomer } from '../../server/domain/customers/customer.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import type { Clock } from '../../server/shared/clock.js';
import { randomToken } from '../../server/shared/crypto.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { CARD_YEAR } from './billing.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { deliveredEvents } from './event-contract.js';

/** What session creation reads of the server's settings. */
const SESSION_SETTINGS = { publicBaseUrl: 'https://till.test', allowLoopbackWebhooks: false };

export interface PlanSpec {
  /** Exact decimal text. */
  amount: string;
  currency?: string;
  interval?: PlanInterval;
  intervalCount?: number;
  name?: string;
}

async function open(clock: Clock) {
  const testDatabase: TestDatabase = await openTestDatabase('billing');
  const db = testDatabase.database.db;
  const { credentials } = await createMerchant(db, clock, { name: `Billing ${randomToken(6)}` });
  const tenant: Tenant = { merchantId: credentials.merchantId, livemode: false };
  let seq = 0;
  const billing = {
    db,
    tenant,
    close: () => testDatabase.close(),
    /** A plan of its own product (monthly in USD unless told). */
    async plan(spec: PlanSpec): Promise<Plan> {
      const product = await createProduct(db, clock, tenant, { name: 'Pro' });
      return createPlan(db, clock, tenant, { productId: product.id, name: spec.name ?? 'Pro monthly', currency: 'USD', interval: 'month', ...spec });
    },
    async customer() {
      return (await createCustomer(db, clock, tenant, { email: `payer${++seq}-${tenant.merchantId}@example.com`, name: 'Ana Lopez' })).customer;
    },
    /** A new customer's subscription on the plan, started through checkout: paid with `card` (4242… unless told), or on a free trial of `trialDays`. */
    async subscribe(plan: Plan, options: { card?: string; trialDays?: number } = {}): Promise<SubscriptionDetails> {
      const customer = await billing.customer();
      const { session } = await createSession(db, clock, SESSION_SETTINGS, tenant, {
        mode: 'embedded',
        paymentType: 'subscription',
        subscriptionPlanId: plan.id,
        clientId: customer.id,
        trialDays: options.trialDays,
      });
      if (!options.trialDays) {
        const card = { cardNumber: options.card ?? '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' };
        const method = await tokenizeCard(db, clock, tenant, session.id, card);
        await confirmSession(db, clock, tenant, session.id, { paymentMethodId: method.id });
      }
      const { subscription_id: id } = await findSession(db, tenant, session.id);
      if (id === null) throw new Error(`session ${session.id} started no subscription`);
      return getSubscription(db, tenant, id);
    },
    subscription: (id: number) => getSubscription(db, tenant, id),
    /** The subscription's row as stored: its dunning state, credit and next due time. */
    row: (id: number) => db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    /** The subscription's invoices, oldest first. */
    invoices: (subscriptionId: number) => db.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).orderBy('id').execute(),
    /** The payments charged for the subscription's invoices, oldest first. */
    payments: (subscriptionId: number) =>
      db
        .selectFrom('payments')
        .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
        .select(['payments.id', 'payments.status', 'payments.amount', 'payments.session_id', 'payments.payment_method_id', 'payments.failure_code'])
        .where('invoices.subscription_id', '=', subscriptionId)
        .orderBy('payments.id')
        .execute(),
    /** The merchant's `subscription.*` events of one subscription, as webhooks carry them (each checked against the contract). */
    async events(subscriptionId: number): Promise<any[]> {
      return (await deliveredEvents(db, tenant.merchantId, 'subscription.')).filter((e) => e.data.object.id === subscriptionId);
    },
  };
  return billing;
}

export type Billing = Awaited<ReturnType<typeof open>>;

/**
 * The file's billing: a database and a merchant of its own, opened before the file's first test
 * (beforeAll) and closed after its last (afterAll). Read it inside tests and hooks.
 */
export function useBilling(clock: Clock): Billing {
  let billing: Billing | undefined;
  beforeAll(async () => {
    billing = await open(clock);
  });
  afterAll(async () => {
    await billing?.close();
    billing = undefined;
  });
  return new Proxy({} as Billing, {
    get(_, key) {
      if (!billing) throw new Error(`useBilling(): the database opens before the file's first test; read billing.${String(key)} inside a test or a hook`);
      return Reflect.get(billing, key) as unknown;
    },
  });
}
