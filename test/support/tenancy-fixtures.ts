// What the tenancy matrix (test/platform/tenancy.test.ts) needs: the contract's id-taking operations,
// one merchant's objects in one mode (every name carrying a unique marker), and, per operationId,
// which of those objects its path ids refer to.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { implementedOperations } from '../../server/api/registry.js';
import { openDispute } from '../../server/domain/disputes/dispute.service.js';
import { payOut } from '../../server/domain/payouts/payouts.service.js';
import { settleNow } from '../../server/domain/payments/settlement.js';
import { clockAhead, systemClock } from '../../server/shared/clock.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { randomToken } from '../../server/shared/crypto.js';
import { type ApiResponse, type TestServer, createTestSession } from './server.js';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../generated/${name}.openapi.json`, import.meta.url), 'utf8'));
const contracts = { checkout: load('checkout'), commerce: load('commerce') };
const resolverOf = (doc: any) => {
  const resolve = (node: any): any =>
    node?.$ref
      ? resolve(
          node.$ref
            .split('/')
            .slice(1)
            .reduce((o: any, k: string) => o[k], doc),
        )
      : node;
  return resolve;
};

export type Shape = 'envelope' | 'error';
export interface IdOperation {
  /** The Commerce interface's operations take the secret key in `x-api-key`. */
  api: 'checkout' | 'commerce';
  operationId: string;
  method: string;
  template: string;
  /** Accepts a secret key (else only a publishable key with the client secret). */
  secretKey: boolean;
  /** Accepts a publishable key with the session's X-Client-Secret. */
  clientSecret: boolean;
  /** Accepts the client secret alone. */
  clientSecretAlone: boolean;
  /** Test-mode only (tag Test Helpers): a live key is refused with 403 before the id is looked at. */
  testOnly: boolean;
  /** The error shape the contract documents for a status. */
  shapeOf(status: number): Shape;
  /** Whether the ids match the path parameters' documented patterns (a test helper's `cs_test_…`); else the contract's 400. */
  idsMatchPattern(params: Record<string, string | number>): boolean;
}

/** Every implemented operation of both contracts with an id in its path (but the PUBLIC Commerce ones, reached by public identifiers). */
export function idOperations(): IdOperation[] {
  return [...idOperationsOf('checkout'), ...idOperationsOf('commerce')];
}

function idOperationsOf(api: IdOperation['api']): IdOperation[] {
  const contract = contracts[api];
  const resolve = resolverOf(contract);
  const implemented = new Set(implementedOperations());
  const found: IdOperation[] = [];
  for (const [template, item] of Object.entries<any>(contract.paths)) {
    if (!template.includes('{')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.operationId || !implemented.has(op.operationId)) continue;
      const security: string[][] = (op.security ?? contract.security).map((alt: object) => Object.keys(alt));
      // A PUBLIC Commerce operation is reached by a public identifier: nobody's tenant.
      if (api === 'commerce' && security.length === 0) continue;
      const has = (...s: string[]) => security.some((alt) => alt.length === s.length && s.every((x) => alt.includes(x)));
      found.push({
        api,
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        secretKey: has('secretKey') || has('apiKey'),
        clientSecret: has('publishableKey', 'clientSecret'),
        clientSecretAlone: has('clientSecret'),
        testOnly: (op.tags ?? []).includes('Test Helpers'),
        shapeOf(status: number) {
          const schema = resolve(resolve(op.responses[String(status)])?.content?.['application/json']?.schema);
          if (!schema) throw new Error(`${op.operationId} documents no ${status}`);
          return schema.required?.includes('success') ? 'envelope' : 'error';
        },
        idsMatchPattern(params) {
          const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve).filter((p: any) => p.in === 'path');
          return declared.every((p: any) => !resolve(p.schema)?.pattern || new RegExp(resolve(p.schema).pattern).test(String(params[p.name])));
        },
      });
    }
  }
  return found;
}

export interface Session {
  id: string;
  clientSecret: string;
}
/** One merchant's objects in one mode; customer, product, plan and webhook are shared by both modes. */
export interface World {
  merchant: MerchantCredentials;
  livemode: boolean;
  /** Text found in this world's objects only (names, emails, amounts). */
  markers: string[];
  openSession: Session;
  qrSession: Session;
  paidSession: Session;
  heldSession: Session;
  paidPayment: string;
  heldPayment: string;
  /** A dispute on another paid payment (a live one is opened through the service: the helper is test-mode only). */
  dispute: string;
  /** A payout (`po_…`) in transit, made through the service (the schedule would wait for the next day). */
  payout: string;
  /** Its wallet account in USD (Commerce), and a funding source that waits for its code. */
  account: number;
  fundingSource: number;
  /** A payment link (Commerce). */
  paymentLink: number;
  invoice: number;
  subscription: number;
  customer: number;
  product: string;
  plan: number;
  /** An inventory item of the product (Commerce catalog), shared by both modes like the product. */
  inventoryItem: number;
  webhook: number;
  delivery: string;
  /** The newest event of this mode (the test send's). */
  event: string;
  /** A role (shared by both modes) and a restricted key of this mode carrying it (its id, and its text). */
  role: number;
  restrictedKey: number;
  restrictedKeyText: string;
}
export type Kind = Exclude<keyof World, 'merchant' | 'livemode' | 'markers' | 'restrictedKeyText'>;
export type SessionKind = 'openSession' | 'qrSession' | 'paidSession' | 'heldSession';
export const isSessionKind = (k: Kind): k is SessionKind => k.endsWith('Session');

/**
 * Objects both modes of a merchant share, by design (README "Webhooks", the contract's plan,
 * product, customer and webhook-configuration descriptions): a test key reads a live-made one.
 */
export const MODE_SHARED: ReadonlySet<Kind> = new Set<Kind>(['customer', 'product', 'plan', 'webhook', 'inventoryItem', 'role']);
/** Mode-shared kinds without a read by id (their list proves it: test/commerce/catalog-products.test.ts). */
export const LIST_ONLY: ReadonlySet<Kind> = new Set<Kind>(['inventoryItem']);

export interface Target {
  /** The object the path's first id refers to. */
  kind: Kind;
  params(w: World): Record<string, string | number>;
  /** A body valid for the operation, so that only the tenant can refuse it. */
  body?: unknown;
}
const on = (kind: Exclude<Kind, 'delivery' | 'restrictedKey'>, body?: unknown, name = 'id'): Target => ({
  kind,
  params: (w) => ({ [name]: (isSessionKind(kind) ? w[kind].id : w[kind]) as string | number }),
  body,
});
const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** How to reach the object each id-taking operation acts on. A new one must be added here. */
export const MATRIX: Record<string, Target> = {
  retrieveCheckoutSession: on('openSession'),
  getCheckoutSessionStatus: on('openSession'),
  cancelCheckoutSession: on('openSession'),
  tokenizeCard: on('openSession', card),
  confirmCheckoutSession: on('openSession', { paymentMethodId: 'pm_test_doesnotmatter' }),
  listSavedCards: on('openSession'),
  verifySavedCard: on('openSession', { paymentMethodId: 'pm_test_doesnotmatter' }),
  confirmSavedCardOtp: on('openSession', { verificationId: 'sv_doesnotmatter', otp: '123456' }),
  lookupSrcCards: on('openSession', { email: 'maria.lopez@example.com' }),
  authenticateSrcCard: on('openSession', { srcCardId: 'src_3f8a2c1e9b7d4a60', validationData: '123456' }),
  withdrawCheckoutSessionQr: on('qrSession'),
  simulateQrPaid: on('qrSession'),
  refundCheckoutSession: on('paidSession', {}),
  refundPayment: on('paidPayment', {}, 'paymentId'),
  settleTestPayment: on('paidPayment', undefined, 'paymentId'),
  openTestDispute: on('paidPayment', {}, 'paymentId'),
  retrieveDispute: on('dispute'),
  retrieveEvent: on('event'),
  updateTestDispute: on('dispute', { status: 'UnderReview' }),
  closeTestDispute: on('dispute', { outcome: 'Lost' }),
  simulatePaymentReceived: on('paidPayment', undefined, 'paymentId'),
  getCommercePayment: on('paidPayment'),
  captureCommercePayment: on('heldPayment', {}),
  failTestPayout: on('payout', {}),
  getAccountBalance: on('account'),
  verifyFundingSource: on('fundingSource', { VerificationCode: '123456' }),
  capturePayment: on('heldPayment', {}, 'paymentId'),
  releasePayment: on('heldPayment', {}, 'paymentId'),
  retrieveInvoice: on('invoice'),
  voidInvoice: on('invoice'),
  getInvoicePdf: on('invoice'),
  sendInvoice: on('invoice'),
  refundInvoice: on('invoice', {}),
  retrieveSubscription: on('subscription'),
  listSubscriptionInvoices: on('subscription'),
  cancelSubscription: on('subscription', {}),
  pauseSubscription: on('subscription', {}),
  resumeSubscription: on('subscription'),
  changeSubscriptionPlan: { kind: 'subscription', params: (w) => ({ id: w.subscription }), body: { planId: 1 } },
  // A parameter the path does not name goes to the query (planId is required there).
  previewSubscriptionPlanChange: { kind: 'subscription', params: (w) => ({ id: w.subscription, planId: w.plan }) },
  retrieveCustomer: on('customer'),
  retrieveProduct: on('product'),
  retrievePlan: on('plan'),
  updatePlan: on('plan', { name: 'Taken over', active: false }),
  archivePlan: on('plan'),
  retrieveWebhookConfiguration: on('webhook'),
  updateWebhookConfiguration: on('webhook', { enabled: false, description: 'Taken over' }),
  deleteWebhookConfiguration: on('webhook'),
  sendWebhookTestEvent: on('webhook', {}),
  listWebhookDeliveries: on('webhook'),
  resendWebhookDelivery: { kind: 'delivery', params: (w) => ({ id: w.webhook, deliveryId: w.delivery }) },
  // Commerce: the same invoices, through x-api-key.
  getCommerceInvoice: on('invoice'),
  listInvoicePaymentMethods: on('invoice'),
  sendCommerceInvoice: on('invoice', {}),
  // Commerce: the subscription catalog (the same products and plans) and subscriptions.
  updateSubscriptionProduct: on('product', { name: 'Taken over' }),
  deleteSubscriptionProduct: on('product'),
  updateSubscriptionPlan: on('plan', { name: 'Taken over', status: 'Inactive' }),
  deleteSubscriptionPlan: on('plan'),
  updateSubscriptionInventoryItem: on('inventoryItem', { status: 'Discontinued' }),
  deleteSubscriptionInventoryItem: on('inventoryItem'),
  cancelCommerceSubscription: on('subscription', { cancelAtPeriodEnd: false }),
  // Roles are the merchant's in both modes; a restricted key is its mode's.
  getRole: on('role'),
  createRestrictedKey: on('role', {}),
  revokeRestrictedKey: { kind: 'restrictedKey', params: (w) => ({ id: w.role, keyId: w.restrictedKey }) },
  updatePaymentLink: on('paymentLink', { name: 'Taken over' }),
  deletePaymentLink: on('paymentLink'),
  activatePaymentLink: on('paymentLink'),
  deactivatePaymentLink: on('paymentLink'),
  getPaymentLinkEmbedCode: on('paymentLink'),
};

/** The operation's path with its ids; parameters the path does not name go to the query string. */
export function pathOf(op: IdOperation, params: Record<string, string | number>): string {
  const used = new Set<string>();
  const path = op.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(params[name] ?? `{${name}}`));
  });
  const query = Object.entries(params).filter(([name]) => !used.has(name));
  return query.length === 0 ? path : `${path}?${new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString()}`;
}

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
  const sent = await t.call('POST', `/v1/WebhookConfiguration/${shared.webhook}/SendTestEvent`, { key: secret, body: { live: livemode } });
  expectStatus(sent, 200);
  const restricted = await t.call('POST', `/v1/role/${shared.role}/keys`, { apiKey: secret });
  expectStatus(restricted, 201);
  const events = await t.call('GET', '/v1/events?limit=1', { key: secret });
  expectStatus(events, 200);
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
    fundingSource: registered.json.fundingSourceId,
    paymentLink: paymentLink.json.id,
    invoice: invoice.json.id,
    subscription,
    delivery: sent.json.deliveryId,
    event: events.json.data[0].id,
    restrictedKey: restricted.json.id,
    restrictedKeyText: restricted.json.key,
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
