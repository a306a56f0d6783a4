// The tenancy matrix's worlds (test/platform/tenancy.test.ts): one merchant's objects in one mode,
// every name carrying a unique marker, made over HTTP (and through the services where the API
// cannot: a live dispute, a payout in transit), and what their owner reads of them.
import { expect, vi } from 'vitest';
import { openDispute } from '../../server/domain/disputes/dispute.service.js';
import { payOut } from '../../server/domain/payouts/payouts.service.js';
import { settleNow } from '../../server/domain/payments/settlement.js';
import { clockAhead, systemClock } from '../../server/shared/clock.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { randomToken } from '../../server/shared/crypto.js';
import { type ApiResponse, type TestServer, createTestSession } from './server.js';
import { type Session, type World, card } from './tenancy-matrix.js';

const keysOf = (w: Pick<World, 'merchant' | 'livemode'>) => (w.livemode ? w.merchant.keys.live : w.merchant.keys.test);
const expectStatus = (res: ApiResponse, status: number) => expect(res.status, res.text).toBe(status);

/** Customer, product, plan, webhook configuration and role: made once, with the test key, for both modes. */
export async function sharedObjects(t: TestServer, merchant: MerchantCredentials, tag: string) {
  const key = merchant.keys.test.secret;
  const customer = await t.call('POST', '/v1/customers', {
    key,
    body: { email: `customer.${tag}@example.com`, name: `Customer ${tag}`, phone: '+1 415 555 0199' },
  });
  const product = await t.call('POST', '/v1/products', { key, body: { name: `Product ${tag}` } });
  const plan = await t.call('POST', '/v1/plans', {
    key,
    body: { productId: product.json.id, name: `Plan ${tag}`, amount: 61.37, currency: 'USD', interval: 'month' },
  });
  const webhook = await t.call('POST', '/v1/WebhookConfiguration', {
    key,
    // Names that never resolve: a test send fails at once (dns_error) and leaves a failed delivery.
    body: {
      sandboxUrl: `https://sandbox.${tag.toLowerCase()}.invalid/hook`,
      liveUrl: `https://live.${tag.toLowerCase()}.invalid/hook`,
      description: `Hook ${tag}`,
    },
  });
  const inventoryItem = await t.call('POST', '/v1/SubscriptionInventoryItem', {
    apiKey: key,
    body: { productId: product.json.id, serialNumber: `SN-${tag}`, status: 'Rented' },
  });
  const role = await t.call('POST', '/v1/role', { apiKey: key, body: { name: `Role ${tag}`, scopes: ['user.read', 'account.read'] } });
  for (const res of [customer, product, plan, webhook, inventoryItem, role]) expect(res.status, res.text).toBe(201);
  return {
    customer: customer.json.data.id as number,
    product: product.json.id as string,
    plan: plan.json.data.id as number,
    webhook: webhook.json.id as number,
    inventoryItem: inventoryItem.json.id as number,
    role: role.json.id as number,
  };
}

/** A merchant's objects in one mode, each in the state its operations act on. */
export async function buildWorld(
  t: TestServer,
  merchant: MerchantCredentials,
  livemode: boolean,
  shared: Awaited<ReturnType<typeof sharedObjects>>,
  tag: string,
): Promise<World> {
  const { secret, publishable } = keysOf({ merchant, livemode });
  const amount = livemode ? 74.23 : 73.19;
  const session = async (body: Record<string, unknown> = {}) => {
    const s = await createTestSession(t, merchant, livemode, { amount, metadata: { tenancy: tag }, ...body });
    return { id: s.id, clientSecret: s.clientSecret };
  };
  const as = (s: Session) => ({ key: publishable, clientSecret: s.clientSecret });
  const pay = async (s: Session) => {
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { ...as(s), body: card });
    expectStatus(pm, 201);
    const paid = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...as(s), body: { paymentMethodId: pm.json.id } });
    expectStatus(paid, 200);
    return paid.json.paymentResult.id as string;
  };
  const openSession = await session({ clientId: shared.customer, allowSavedCards: true, enableClickToPay: true });
  const qrSession = await session();
  expectStatus(await t.call('POST', `/v1/checkout-sessions/${qrSession.id}/confirm`, { ...as(qrSession), body: { paymentMethodId: 'wallet:qr' } }), 200);
  const paidSession = await session();
  const paidPayment = await pay(paidSession);
  const heldSession = await session({ captureMethod: 'manual' });
  const heldPayment = await pay(heldSession);
  const disputed = Number(await pay(await session()));
  const dispute = livemode
    ? (await openDispute(t.database.db, systemClock, { merchantId: merchant.merchantId, livemode }, disputed, {})).id
    : ((await t.call('POST', `/v1/test-helpers/payments/${disputed}/dispute`, { key: secret, body: {} })).json.id as string);
  expect(dispute).toMatch(/^dp_/);
  const settledPayment = Number(await pay(await session()));
  const tenant = { merchantId: merchant.merchantId, livemode };
  const payout = await t.database.db.transaction().execute(async (trx) => {
    await settleNow(trx, systemClock, tenant, settledPayment);
    return payOut(trx, clockAhead(systemClock, 86_400), tenant, 'USD'); // tomorrow's payout: what is available today
  });
  expect(payout?.id).toMatch(/^po_/);
  const accounts = await t.call('GET', '/v1/account', { apiKey: secret });
  expectStatus(accounts, 200);
  const account = accounts.json.value.find((a: { currencyCode: string }) => a.currencyCode === 'USD').id as number;
  const fundedPayment = Number(await pay(await session()));
  await t.database.db.transaction().execute((trx) => settleNow(trx, systemClock, tenant, fundedPayment));
  const transfer = await t.call('POST', '/v1/transfer', {
    apiKey: secret,
    body: { sourceAccountId: account, destinationAccountNumber: 'DE89370400440532013000', amount: 1, currencyCode: 'USD', transferAction: 'BankTransfer' },
  });
  expectStatus(transfer, 201); // `Processing` until the next business day
  const year = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');
  const registered = await t.call('POST', '/v1/payment/RegisterCard', {
    apiKey: secret,
    body: { card: { cardNumber: '4000000000003220', expiryDate: `12/${year}`, cvv: '123' } },
  });
  expectStatus(registered, 200);
  const paymentLink = await t.call('POST', '/v1/PaymentLink', { apiKey: secret, body: { name: `Link ${tag}`, currencyCode: 'USD', unitPrice: '88.41' } });
  expectStatus(paymentLink, 201);
  const invoice = await t.call('POST', '/v1/invoices', {
    key: secret,
    body: { customer: { email: `payer.${tag}@example.com` }, currency: 'USD', lineItems: [{ name: `Line ${tag}`, quantity: 1, unitAmount: 88.41 }] },
  });
  expectStatus(invoice, 201);
  const trial = await session({ paymentType: 'subscription', subscriptionPlanId: shared.plan, clientId: shared.customer, trialDays: 7, amount: 61.37 });
  const subscription = (await t.call('GET', `/v1/checkout-sessions/${trial.id}`, { key: secret })).json.subscriptionId as number;
  expect(subscription).toBeTruthy();
  const subscribed = await t.call('GET', `/v1/subscriptions/${subscription}`, { key: secret });
  expectStatus(subscribed, 200);
  const subscriptionItem = subscribed.json.data.items[0].id as number;
  expect(subscriptionItem).toBeTruthy();
  const sent = await t.call('POST', `/v1/WebhookConfiguration/${shared.webhook}/SendTestEvent`, { key: secret, body: { live: livemode } });
  expectStatus(sent, 200);
  const restricted = await t.call('POST', `/v1/role/${shared.role}/keys`, { apiKey: secret });
  expectStatus(restricted, 201);
  const events = await t.call('GET', '/v1/events?limit=1', { key: secret });
  expectStatus(events, 200);
  const requestLog = await vi.waitFor(
    async () => {
      const logs = await t.call('GET', `/v1/request-logs?requestId=${events.headers.get('x-request-id')}`, { key: secret });
      expect(logs.json.data, logs.text).toHaveLength(1);
      return logs.json.data[0].id as string;
    },
    { timeout: 15_000, interval: 50 },
  );
  return {
    merchant,
    livemode,
    markers: [tag, String(amount), '61.37', '88.41'],
    ...shared,
    openSession,
    qrSession,
    paidSession,
    heldSession,
    paidPayment,
    heldPayment,
    dispute,
    payout: payout!.id,
    account,
    transfer: transfer.json.id,
    fundingSource: registered.json.fundingSourceId,
    paymentLink: paymentLink.json.id,
    invoice: invoice.json.id,
    subscription,
    subscriptionItem,
    delivery: sent.json.deliveryId,
    event: events.json.data[0].id,
    restrictedKey: restricted.json.id,
    restrictedKeyText: restricted.json.key,
    requestLog,
  };
}

/** Everything a world's owner reads of its objects, to compare before and after the matrix. */
export async function snapshot(t: TestServer, w: World): Promise<Record<string, unknown>> {
  const key = keysOf(w).secret;
  const reads: Record<string, string> = {
    customer: `/v1/customers/${w.customer}`,
    product: `/v1/products/${w.product}`,
    plan: `/v1/plans/${w.plan}`,
    webhook: `/v1/WebhookConfiguration/${w.webhook}`,
    deliveries: `/v1/WebhookConfiguration/${w.webhook}/deliveries`,
    invoice: `/v1/invoices/${w.invoice}`,
    dispute: `/v1/disputes/${w.dispute}`,
    event: `/v1/events/${w.event}`,
    subscription: `/v1/subscriptions/${w.subscription}`,
    subscriptionInvoices: `/v1/subscriptions/${w.subscription}/invoices`,
  };
  for (const kind of ['openSession', 'qrSession', 'paidSession', 'heldSession'] as const) reads[kind] = `/v1/checkout-sessions/${w[kind].id}`;
  const out: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(reads)) {
    const res = await t.call('GET', path, { key });
    expect(res.status, `${name}: ${res.text}`).toBe(200);
    out[name] = res.json;
  }
  // The Commerce catalog's inventory items have no read by id: their list, filtered to the world's item.
  const items = await t.call('GET', `/v1/SubscriptionInventoryItem?$filter=${encodeURIComponent(`id eq ${w.inventoryItem}`)}`, { apiKey: key });
  expect(items.json.value, items.text).toHaveLength(1);
  out.inventoryItem = items.json;
  // Commerce reads: the role, and the restricted key still working (a refused revocation revoked nothing).
  for (const [name, path, apiKey] of [
    ['role', `/v1/role/${w.role}`, key],
    ['restrictedKeyUser', '/v1/user', w.restrictedKeyText],
  ] as const) {
    const res = await t.call('GET', path, { apiKey });
    expect(res.status, `${name}: ${res.text}`).toBe(200);
    out[name] = res.json;
  }
  const link = await t.call('GET', `/v1/PaymentLink?$filter=id eq ${w.paymentLink}`, { apiKey: key });
  expect(link.json.value, link.text).toHaveLength(1);
  out.paymentLink = link.json.value[0];
  return out;
}

/** Unique per test run, so a marker found in a body can only have come from that world. */
export const newTag = (label: string) => `Tn${label}${randomToken(8)}`;
export { keysOf };
