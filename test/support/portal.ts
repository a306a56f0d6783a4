// What the portal tests share: a merchant's plans, customers and subscriptions made over the API,
// portal sessions, and the portal's pages fetched and posted to as a browser would.
import { expect } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import type { TestServer } from './server.js';

export const CARD_YEAR = new Date().getUTCFullYear() + 4;
let seq = 0;

/** A plan of the merchant (monthly, 29 USD unless told), with its own product. */
export async function newPlan(t: TestServer, merchant: MerchantCredentials, spec: Record<string, unknown> = {}): Promise<any> {
  const key = merchant.keys.test.secret;
  const product = await t.call('POST', '/v1/products', { key, body: { name: 'Portal product' } });
  const plan = await t.call('POST', '/v1/plans', {
    key,
    body: { productId: product.json.id, name: `Plan ${++seq}`, amount: 29, currency: 'USD', interval: 'month', ...spec },
  });
  expect(plan.status, plan.text).toBe(201);
  return plan.json.data;
}

export async function newCustomer(t: TestServer, merchant: MerchantCredentials): Promise<any> {
  const res = await t.call('POST', '/v1/customers', {
    key: merchant.keys.test.secret,
    body: { email: `portal${++seq}-${Date.now()}@example.com`, name: 'Pat Portal' },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** A subscription of the customer on the plan: a free trial (started at once), or paid by card in test or live mode. */
export async function newSubscription(
  t: TestServer,
  merchant: MerchantCredentials,
  planId: number,
  clientId: number,
  options: { trialDays?: number; livemode?: boolean } = {},
): Promise<any> {
  const mode = options.livemode ? merchant.keys.live : merchant.keys.test;
  const body = {
    mode: 'embedded',
    paymentType: 'subscription',
    subscriptionPlanId: planId,
    clientId,
    ...(options.trialDays ? { trialDays: options.trialDays } : {}),
  };
  const session = await t.call('POST', '/v1/checkout-sessions', { key: mode.secret, body });
  expect(session.status, session.text).toBe(201);
  if (!options.trialDays) {
    const pm = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/tokenize`, {
      key: mode.publishable,
      clientSecret: session.json.clientSecret,
      body: { cardNumber: '5555555555554444', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
    });
    const paid = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/confirm`, {
      key: mode.publishable,
      clientSecret: session.json.clientSecret,
      body: { paymentMethodId: pm.json.id },
    });
    expect(paid.status, paid.text).toBe(200);
  }
  const got = await t.call('GET', `/v1/checkout-sessions/${session.json.id}`, { key: mode.secret });
  const subscription = await t.call('GET', `/v1/subscriptions/${got.json.subscriptionId}`, { key: mode.secret });
  return subscription.json.data;
}

/** A portal session over the API; answers its body and the path of its page on the test server. */
export async function newPortal(
  t: TestServer,
  merchant: MerchantCredentials,
  clientId: number,
  options: { returnUrl?: string; livemode?: boolean } = {},
): Promise<{ session: any; path: string; token: string }> {
  const key = options.livemode ? merchant.keys.live.secret : merchant.keys.test.secret;
  const res = await t.call('POST', '/v1/portal-sessions', { key, body: { clientId, ...(options.returnUrl ? { returnUrl: options.returnUrl } : {}) } });
  expect(res.status, res.text).toBe(201);
  const path = new URL(res.json.url).pathname;
  return { session: res.json, path, token: path.split('/').pop()! };
}

export interface PageAnswer {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

/** GETs a portal page (no redirect followed). */
export async function getPage(t: TestServer, path: string): Promise<PageAnswer> {
  const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), headers: res.headers };
}

/** The form token a portal page carries. */
export const formTokenOf = (html: string): string => /name="form" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** POSTs a form to the portal as the page would (urlencoded), with the page's form token unless `form` is given. */
export async function postForm(
  t: TestServer,
  path: string,
  fields: Record<string, string>,
  options: { headers?: Record<string, string> } = {},
): Promise<PageAnswer> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), headers: res.headers };
}

/** The card fields of the portal's card form. */
export const cardFields = (cardNumber: string) => ({ cardNumber, expiryMonth: '12', expiryYear: String(CARD_YEAR), cvc: '123', cardName: 'Pat Portal' });
