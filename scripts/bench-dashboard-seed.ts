/**
 * The merchant of the dashboard part of `npm run bench` (bench-dashboard.ts): what a shop with
 * 10,000 payments holds. The objects a merchant makes one by one are made through the real app
 * over HTTP (as bench-clock-seed.ts makes them): paid card payments (some settled, refunded or
 * disputed), days of payouts on the sandbox clock, a transfer, customers, products and plans,
 * subscriptions, invoices, payment links, open checkout sessions, webhook endpoints, roles and
 * restricted keys. The bulk, which only volume makes, is written by INSERT … SELECT over
 * generate_series: the 10,000 payments with their cards, two events a payment, a webhook delivery
 * and attempt per event, the request log and the audit log.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../server/db/database.js';
import { positiveInt } from './bench-lib.js';

/** How many of each thing the merchant holds (PAYMENTS: BENCH_DASHBOARD_PAYMENTS, default 10,000). */
export const DASHBOARD_SEED = {
  payments: positiveInt('BENCH_DASHBOARD_PAYMENTS', 10_000),
  cardPayments: 40,
  settled: 30,
  refunded: 5,
  disputed: 5,
  payoutDays: 5,
  customers: 300,
  products: 20,
  plansPerProduct: 2,
  subscriptions: 10,
  invoices: 100,
  paymentLinks: 20,
  openSessions: 200,
  roles: 5,
  keysPerRole: 2,
  requestLogs: 20_000,
  auditEntries: 2_000,
} as const;
const LOOPS = 4;
const CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };

export interface Merchant {
  url: string;
  merchantId: number;
  secret: string;
  publishable: string;
}

type Auth = 'bearer' | 'x-api-key' | { clientSecret: string; publishable: string };

async function call(m: Merchant, method: string, path: string, body?: unknown, auth: Auth = 'bearer'): Promise<any> {
  const headers: Record<string, string> =
    auth === 'bearer'
      ? { Authorization: `Bearer ${m.secret}` }
      : auth === 'x-api-key'
        ? { 'x-api-key': m.secret }
        : { Authorization: `Bearer ${auth.publishable}`, 'X-Client-Secret': auth.clientSecret };
  if (method === 'POST') headers['Idempotency-Key'] = `bench-dashboard-${randomUUID()}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const send = () =>
    fetch(`${m.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(300_000) });
  // A connection reset on a loaded machine: the same request again (a POST with the same Idempotency-Key).
  const res = await send()
    .catch((error: unknown) => (error instanceof TypeError ? send() : Promise.reject(error)))
    .catch((error: unknown) => {
      throw new Error(`${method} ${path}: ${error instanceof Error ? `${error.message} (${String(error.cause)})` : String(error)}`);
    });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Runs `count` tasks, LOOPS at a time. */
async function times(count: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

const idOf = (body: any): number => Number(body?.data?.id ?? body?.id);

/** A paid card payment of a checkout session (`extra` for a subscription); answers the payment id. */
async function pay(m: Merchant, extra: Record<string, unknown>): Promise<number> {
  const session = await call(m, 'POST', '/v1/checkout-sessions', { mode: 'embedded', ...extra });
  const payer = { publishable: m.publishable, clientSecret: session.clientSecret as string };
  const method = await call(m, 'POST', `/v1/checkout-sessions/${session.id}/tokenize`, CARD, payer);
  const confirmed = await call(m, 'POST', `/v1/checkout-sessions/${session.id}/confirm`, { paymentMethodId: String(method.id ?? method.data?.id) }, payer);
  return Number(confirmed.paymentResult?.id);
}

/** Card payments settled over a few days of the sandbox clock (a payout each night), refunds, disputes and a transfer. Answers the seconds the clock moved. */
async function money(m: Merchant): Promise<number> {
  const s = DASHBOARD_SEED;
  const perDay = Math.ceil(s.settled / s.payoutDays);
  let advanced = 0;
  for (let day = 0; day < s.payoutDays; day++) {
    await times(perDay, async (i) => {
      const id = await pay(m, { amount: 20 + day * perDay + i, currency: 'USD', paymentType: 'oneTime' });
      await call(m, 'POST', `/v1/test-helpers/payments/${id}/settle`);
    });
    if (day === 0) {
      const accounts = await call(m, 'GET', '/v1/account', undefined, 'x-api-key');
      const account = (accounts.value as Array<{ id: number; currencyCode: string }>).find((a) => a.currencyCode === 'USD');
      const transfer = {
        currencyCode: 'USD',
        sourceAccountId: account?.id,
        destinationAccountNumber: 'DE89370400440532013000',
        amount: 10,
        transferAction: 'CBDCTransfer',
      };
      await call(m, 'POST', '/v1/transfer', transfer, 'x-api-key');
    }
    await call(m, 'POST', '/v1/test-helpers/clock/advance', { seconds: 86_400 });
    advanced += 86_400;
  }
  await times(s.cardPayments - s.settled, async (i) => {
    const id = await pay(m, { amount: 30 + i, currency: 'USD', paymentType: 'oneTime' });
    if (i < s.refunded) await call(m, 'POST', `/v1/payments/${id}/refund`, { amount: 5 });
    else if (i < s.refunded + s.disputed) await call(m, 'POST', `/v1/test-helpers/payments/${id}/dispute`, {});
  });
  return advanced;
}

/** Customers, the catalogue, subscriptions, invoices, payment links, open sessions, webhook endpoints, roles and keys. */
async function objects(m: Merchant): Promise<number> {
  const s = DASHBOARD_SEED;
  await times(s.customers, (i) => call(m, 'POST', '/v1/customers', { email: `customer${i}@example.com`, name: `Customer ${i}` }));
  const plans: number[] = [];
  await times(s.products, async (i) => {
    const product = await call(m, 'POST', '/v1/products', { name: `Product ${i}` });
    for (let p = 0; p < s.plansPerProduct; p++) {
      const interval = p % 2 ? 'year' : 'month';
      plans.push(
        idOf(await call(m, 'POST', '/v1/plans', { productId: product.id, name: `Product ${i} ${interval}ly`, amount: 9 + i, currency: 'USD', interval })),
      );
    }
  });
  await times(s.subscriptions, async (i) => {
    const customer = await call(m, 'POST', '/v1/customers', { email: `subscriber${i}@example.com` });
    await pay(m, { paymentType: 'subscription', subscriptionPlanId: plans[i % plans.length], clientId: idOf(customer) });
  });
  const invoice = (i: number) => ({
    customer: { email: `payer${i}@example.com`, firstName: 'Ana', lastName: 'Lopez' },
    currency: 'USD',
    lineItems: [{ name: 'Consulting', quantity: 1 + (i % 3), unitAmount: 120.5 }],
  });
  await times(s.invoices, (i) => call(m, 'POST', '/v1/invoices', invoice(i)));
  const link = (i: number) => ({
    name: `Link ${i}`,
    currencyCode: 'USD',
    unitPrice: '24.50',
    productName: `Beans ${i}`,
    successUrl: 'https://shop.example.com/thanks',
  });
  await times(s.paymentLinks, (i) => call(m, 'POST', '/v1/PaymentLink', link(i), 'x-api-key'));
  await times(s.openSessions, (i) =>
    call(m, 'POST', '/v1/checkout-sessions', { mode: 'embedded', amount: 25 + (i % 10), currency: 'USD', paymentType: 'oneTime' }),
  );
  const endpoint = await call(m, 'POST', '/v1/WebhookConfiguration', {
    sandboxUrl: 'https://hooks.example.com/till',
    subscribedEvents: ['*'],
    description: 'bench',
  });
  await call(m, 'POST', '/v1/WebhookConfiguration', {
    sandboxUrl: 'https://hooks.example.com/other',
    subscribedEvents: ['payment.succeeded'],
    description: 'bench 2',
  });
  await times(s.roles, async (i) => {
    const role = await call(m, 'POST', '/v1/role', { name: `Role ${i}`, scopes: ['payment.read'] }, 'x-api-key');
    for (let k = 0; k < s.keysPerRole; k++) await call(m, 'POST', `/v1/role/${role.id}/keys`, { description: `key ${k}` }, 'x-api-key');
  });
  return idOf(endpoint);
}

/** The bulk: payments and cards, events, deliveries and attempts, request and audit logs, created over the last 28 days before the sandbox clock's now. */
async function bulk(db: Db, merchantId: number, endpointId: number, offsetSeconds: number): Promise<void> {
  const n = DASHBOARD_SEED.payments;
  const now = sql`(now() + make_interval(secs => ${offsetSeconds}))`;
  await sql`INSERT INTO payment_methods (id, merchant_id, livemode, brand, last4, expiry_month, expiry_year, fingerprint, sandbox_outcome, billing_email, created_at)
    SELECT 'pm_bench_' || g, ${merchantId}, false, 'visa', '4242', 12, 2030, 'fp' || (g % 500), 'approve', 'payer' || (g % 2000) || '@example.com', ${now} - make_interval(mins => g)
    FROM generate_series(1, ${n}) g`.execute(db);
  await sql`INSERT INTO payments (reference_number, merchant_id, livemode, payment_method_id, status, amount, currency, fee, refunded_amount, captured_amount, metadata, created_at, updated_at)
    SELECT 'PAY-BENCH' || g, ${merchantId}, false, 'pm_bench_' || g,
      (ARRAY['succeeded','failed','captured','refunded','partially_refunded','authorized'])[1 + g % 6],
      (g % 50000) / 100.0 + 1, 'USD', 0.3, 0, NULL, '{}', ${now} - make_interval(mins => (${n} - g) * 4), ${now}
    FROM generate_series(1, ${n}) g`.execute(db);
  // Written in one statement, not over a month: no NOTIFY per row for the event stream's listeners.
  await sql`ALTER TABLE events DISABLE TRIGGER events_written_notify`.execute(db);
  await sql`INSERT INTO events (id, merchant_id, livemode, type, api_version, data, payment_id, created_at, dispatched_at)
    SELECT 'evt_bench_' || p.id || '_' || k, ${merchantId}, false, (ARRAY['payment.created', 'payment.succeeded'])[k], '2026-11-01',
      jsonb_build_object('object', jsonb_build_object('id', p.id, 'amount', p.amount, 'currency', p.currency)), p.id, p.created_at, p.created_at
    FROM payments p, generate_series(1, 2) k WHERE p.merchant_id = ${merchantId} AND p.reference_number LIKE 'PAY-BENCH%'`.execute(db);
  await sql`ALTER TABLE events ENABLE TRIGGER events_written_notify`.execute(db);
  await sql`INSERT INTO webhook_deliveries (id, merchant_id, livemode, configuration_id, event_id, event_type, url, status, attempt_count, automatic_attempts, created_at, updated_at)
    SELECT 'wd_bench_' || e.seq, ${merchantId}, false, ${endpointId}, e.id, e.type, 'https://hooks.example.com/till',
      CASE WHEN e.seq % 50 = 0 THEN 'failed' ELSE 'delivered' END, 1, 1, e.created_at, e.created_at
    FROM events e WHERE e.merchant_id = ${merchantId} AND e.id LIKE 'evt_bench_%'`.execute(db);
  await sql`INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, url, http_status, duration_ms, response_snippet)
    SELECT d.id, d.created_at, d.url, CASE WHEN d.status = 'failed' THEN 500 ELSE 200 END, 40, 'ok'
    FROM webhook_deliveries d WHERE d.merchant_id = ${merchantId} AND d.id LIKE 'wd_bench_%'`.execute(db);
  await sql`INSERT INTO request_logs (id, merchant_id, livemode, method, path, operation_id, status, duration_ms, request_id, key_prefix, request_body, response_body, created_at)
    SELECT 'req_bench_' || g, ${merchantId}, false, CASE WHEN g % 3 = 0 THEN 'GET' ELSE 'POST' END, '/v1/checkout-sessions', 'createCheckoutSession',
      CASE WHEN g % 40 = 0 THEN 400 ELSE 201 END, 12.5, 'req_bench_' || g, 'sk_test_bench', '{"amount": 25}', '{"id": "cs_test"}', ${now} - make_interval(secs => g * 120)
    FROM generate_series(1, ${DASHBOARD_SEED.requestLogs}) g`.execute(db);
  await sql`INSERT INTO audit_entries (merchant_id, livemode, action, actor_type, actor_key_prefix, target_type, target_id, changes, created_at)
    SELECT ${merchantId}, false, 'webhook_configuration.updated', 'api_key', 'sk_test_bench', 'webhook_configuration', (g % 2 + 1)::text, '{"description": {"from": "a", "to": "b"}}', ${now} - make_interval(secs => g * 600)
    FROM generate_series(1, ${DASHBOARD_SEED.auditEntries}) g`.execute(db);
  for (const table of ['payments', 'payment_methods', 'events', 'webhook_deliveries', 'webhook_delivery_attempts', 'request_logs', 'audit_entries'])
    await sql`ANALYZE ${sql.table(table)}`.execute(db);
}

/** Makes the merchant's objects through the app at `m.url`, then the bulk through `db`; answers the first webhook endpoint's id. */
export async function seedDashboardMerchant(db: Db, m: Merchant): Promise<{ endpointId: number }> {
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    const result = await work();
    console.log(`bench: dashboard seed: ${name} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
    return result;
  };
  const offsetSeconds = await phase('payments, payouts, transfer, disputes (API)', () => money(m));
  const endpointId = await phase('customers, catalogue, subscriptions, invoices, links, sessions, endpoints, roles (API)', () => objects(m));
  await phase('the bulk (SQL)', () => bulk(db, m.merchantId, endpointId, offsetSeconds));
  return { endpointId };
}
