/**
 * The realistic sandbox of the clock part of `npm run bench` (bench-clock.ts), made over the API as
 * a merchant's tests make it: two webhook endpoints (one answering 200, one answering 500), paid
 * card payments (some refunded in full, some in part), card holds (some captured, the rest left to
 * lapse), checkout sessions left open (they expire), and subscriptions on a monthly and a yearly
 * plan: paid, on a free trial, and on a card that is declined at every renewal (dunning).
 */
import { randomUUID } from 'node:crypto';
import { idOf } from './bench-lib.js';
import { CARD } from './bench-payments.js';
import type { TillProcess } from './bench-till.js';

/** How many of each thing the sandbox holds. */
export const SANDBOX = {
  payments: 200,
  refundedInFull: 30,
  refundedInPart: 20,
  holds: 40,
  holdsCaptured: 10,
  openSessions: 120,
  subscriptions: { monthly: 14, yearly: 6, monthlyTrial: 8, yearlyTrial: 4, declining: 4 },
} as const;
/** Succeeds at checkout; every renewal, retry or plan-change charge is declined. */
const DECLINES_LATER = '4000000000000341';
/** Requests of the seeding in flight at once. */
const LOOPS = 8;

type Api = (method: string, path: string, body?: unknown, key?: 'secret' | { publishable: string; clientSecret: string }) => Promise<any>;

/** The merchant's API, with its secret key (and an Idempotency-Key on each POST) or the payer's publishable key and client secret. */
export function apiOf(till: TillProcess): Api {
  return async (method, path, body, key = 'secret') => {
    const headers: Record<string, string> =
      key === 'secret'
        ? { Authorization: `Bearer ${till.secretKey}`, ...(method === 'POST' ? { 'Idempotency-Key': `bench-clock-${randomUUID()}` } : {}) }
        : { Authorization: `Bearer ${till.publishableKey}`, 'X-Client-Secret': key.clientSecret };
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(method, `${till.url}${path}`, headers, body);
      } catch (error) {
        // A connection reset on a loaded machine: the same request again (a POST with the same Idempotency-Key).
        if (attempt >= 3 || !(error instanceof TypeError)) throw error;
      }
    }
  };
}

/** One JSON request (PGlite on a loaded machine can take more than callJson's 10 s); throws on a non-2xx answer. */
async function call(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
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

/** A session paid with a card (a hold when `manual`); answers the session id and the payment id. */
async function pay(api: Api, body: Record<string, unknown>, cardNumber: string = CARD.cardNumber): Promise<{ sessionId: string; paymentId: number }> {
  const session = await api('POST', '/v1/checkout-sessions', { mode: 'embedded', ...body });
  const payer = { publishable: '', clientSecret: session.clientSecret as string };
  const method = await api('POST', `/v1/checkout-sessions/${session.id}/tokenize`, { ...CARD, cardNumber }, payer);
  const confirmed = await api('POST', `/v1/checkout-sessions/${session.id}/confirm`, { paymentMethodId: idOf(method) }, payer);
  return { sessionId: session.id, paymentId: confirmed.paymentResult?.id };
}

async function plan(api: Api, interval: 'month' | 'year', amount: number): Promise<number> {
  const product = await api('POST', '/v1/products', { name: `Bench ${interval}ly` });
  return Number(idOf(await api('POST', '/v1/plans', { productId: product.id, name: `Bench ${interval}ly`, amount, currency: 'USD', interval })));
}

/** The subscriptions: paid monthly and yearly, on 7- and 14-day trials, and on a card declined at renewal. */
async function subscriptions(api: Api): Promise<void> {
  const monthly = await plan(api, 'month', 29);
  const yearly = await plan(api, 'year', 290);
  const s = SANDBOX.subscriptions;
  const kinds: Array<{ planId: number; trialDays?: number; card?: string }> = [
    ...Array.from({ length: s.monthly }, () => ({ planId: monthly })),
    ...Array.from({ length: s.yearly }, () => ({ planId: yearly })),
    ...Array.from({ length: s.monthlyTrial }, () => ({ planId: monthly, trialDays: 7 })),
    ...Array.from({ length: s.yearlyTrial }, () => ({ planId: yearly, trialDays: 14 })),
    ...Array.from({ length: s.declining }, () => ({ planId: monthly, card: DECLINES_LATER })),
  ];
  await times(kinds.length, async (i) => {
    const kind = kinds[i]!;
    const customer = await api('POST', '/v1/customers', { email: `bench-clock-${i}-${randomUUID()}@example.com`, name: 'Ana Lopez' });
    const body = {
      paymentType: 'subscription',
      subscriptionPlanId: kind.planId,
      clientId: Number(idOf(customer)),
      ...(kind.trialDays ? { trialDays: kind.trialDays } : {}),
    };
    if (kind.trialDays) await api('POST', '/v1/checkout-sessions', { mode: 'embedded', ...body });
    else await pay(api, body, kind.card);
  });
}

/**
 * Makes the sandbox on the merchant of `till`; `receiverUrl` answers 200, and `${receiverUrl}/fail` 500.
 */
export async function seedSandbox(till: TillProcess, receiverUrl: string): Promise<void> {
  const api = apiOf(till);
  await api('POST', '/v1/WebhookConfiguration', { sandboxUrl: receiverUrl, subscribedEvents: ['*'], description: 'bench: answers 200' });
  await api('POST', '/v1/WebhookConfiguration', { sandboxUrl: `${receiverUrl}/fail`, subscribedEvents: ['*'], description: 'bench: answers 500' });
  const oneTime = { amount: 25, currency: 'USD', paymentType: 'oneTime' };
  await times(SANDBOX.payments, async (i) => {
    const { sessionId } = await pay(api, { ...oneTime, amount: 20 + (i % 50) });
    if (i < SANDBOX.refundedInFull) await api('POST', `/v1/checkout-sessions/${sessionId}/refund`, {});
    else if (i < SANDBOX.refundedInFull + SANDBOX.refundedInPart) await api('POST', `/v1/checkout-sessions/${sessionId}/refund`, { amount: 5 });
  });
  await times(SANDBOX.holds, async (i) => {
    const { paymentId } = await pay(api, { ...oneTime, captureMethod: 'manual' });
    if (i < SANDBOX.holdsCaptured) await api('POST', `/v1/payments/${paymentId}/capture`, {});
  });
  await times(SANDBOX.openSessions, () => api('POST', '/v1/checkout-sessions', { mode: 'embedded', ...oneTime }));
  await subscriptions(api);
}
