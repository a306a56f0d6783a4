// Checkout as a merchant's server and a payer's browser drive it over HTTP: the sandbox processor's
// test cards, a session paid by card, and the operations that several checkout test files share
// (wallet QR codes, 3-D Secure challenges, saved cards, disputes). Every kit is made per test file
// from its own server (`useTestServer()`): it keeps no state between files.
import { expect } from 'vitest';
import { eventEnvelope } from '../../server/api/checkout/views/event.view.js';
import { toEventRecord } from '../../server/domain/events/event.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { expectEventMatchesContract } from './event-contract.js';
import { delivered } from './events.js';
import { MERCHANT_BALANCES } from './ledger.js';
import { call, createTestSession, type TestServer } from './server.js';

/** The sandbox processor's test cards. */
export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  discover: '6011111111111117',
  /** Declined for insufficient funds (400 card_declined). */
  declined: '4000000000009995',
  /** The processor fails (502 processing_error, retryable). */
  processingError: '4000000000000119',
  /** Asks for a 3-D Secure challenge. */
  threeDSecure: '4000000000003220',
} as const;

export const CARD_EXPIRY_YEAR = new Date().getUTCFullYear() + 2;

/** A card as tokenize takes it: expiring in December two years ahead, CVC 123. */
export const cardDetails = (cardNumber: string = CARDS.visa, cvc = '123') => ({ cardNumber, expiryMonth: 12, expiryYear: CARD_EXPIRY_YEAR, cvc });

/** A session as the payer's browser knows it. */
export interface PayerSession {
  id: string;
  clientSecret: string;
}

/** `n` minutes after the clock's now, as an ISO timestamp. */
export const inMinutes = (clock: { now(): Date }, n: number) => new Date(clock.now().getTime() + n * 60_000).toISOString();

const keysOf = (merchant: MerchantCredentials, livemode: boolean) => (livemode ? merchant.keys.live : merchant.keys.test);

/** A test session of `merchant` (merchant A by default; `body` over createTestSession's defaults) paid with `cardNumber` (Visa). */
export async function paidCardPayment(
  t: TestServer,
  options: { merchant?: MerchantCredentials; livemode?: boolean; body?: Record<string, unknown>; cardNumber?: string } = {},
) {
  const merchant = options.merchant ?? t.merchantA;
  const livemode = options.livemode ?? false;
  const session = await createTestSession(t, merchant, livemode, options.body ?? {});
  const payer = { key: keysOf(merchant, livemode).publishable, clientSecret: session.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, { ...payer, body: cardDetails(options.cardNumber) });
  const confirmed = await t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, { ...payer, body: { paymentMethodId: pm.json.id } });
  return { session, sessionId: session.id, confirmed, paymentId: confirmed.json.paymentResult?.id as number };
}

/**
 * Merchant A's test-mode sessions (`defaults` under each body) and what the payer's browser does
 * on them (tokenize, confirm: on `url`, another app instance, if given), with what they wrote.
 */
export function checkoutKit(t: TestServer, defaults: Record<string, unknown> = {}) {
  const sk = () => t.merchantA.keys.test.secret;
  const pk = () => t.merchantA.keys.test.publishable;
  const payer = (s: PayerSession) => ({ key: pk(), clientSecret: s.clientSecret });
  return {
    sk,
    pk,
    session: (body: Record<string, unknown> = {}) => createTestSession(t, t.merchantA, false, { ...defaults, ...body }),
    tokenize: (s: PayerSession, cardNumber: string = CARDS.visa, extra: Record<string, unknown> = {}) =>
      t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { ...payer(s), body: { ...cardDetails(cardNumber), ...extra } }),
    confirm: (s: PayerSession, body: Record<string, unknown>, url = t.url) => call(url, 'POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...payer(s), body }),
    retrieve: (s: { id: string }) => t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk() }),
    payments: (s: { id: string }) => t.database.db.selectFrom('payments').selectAll().where('session_id', '=', s.id).orderBy('id').execute(),
    /** The session's events as delivered, in order. */
    events: async (s: { id: string }) =>
      (await t.database.db.selectFrom('events').selectAll().where('session_id', '=', s.id).orderBy('seq').execute()).map(delivered),
  };
}

/** Session creation as the merchant's server posts it: a hosted one-time session of 49.99 USD, `body` over that. */
export function sessionCreator(t: TestServer) {
  const base = { amount: 49.99, currency: 'USD', mode: 'hosted', paymentType: 'oneTime', successUrl: 'https://shop.example.com/thanks' };
  return (body: Record<string, unknown>, key = t.merchantA.keys.test.secret) => t.call('POST', '/v1/checkout-sessions', { key, body: { ...base, ...body } });
}

/** Wallet QR payments on merchant A's sessions (49.99 USD to Ana, order Q-1): confirm with a wallet option, withdraw-qr, the sandbox wallet paying. */
export function walletKit(t: TestServer) {
  const kit = checkoutKit(t, { amount: 49.99, customerEmail: 'ana@example.com', customerFirstName: 'Ana', metadata: { orderId: 'Q-1' } });
  const confirm = (s: PayerSession, paymentMethodId = 'wallet:qr', url = t.url) => kit.confirm(s, { paymentMethodId }, url);
  const qrPaid = (s: PayerSession, url = t.url, key = kit.sk()) => call(url, 'POST', `/v1/test-helpers/checkout-sessions/${s.id}/qr-paid`, { key });
  /** A session showing a live QR code. */
  async function showingQr(body: Record<string, unknown> = {}) {
    const s = await kit.session(body);
    const res = await confirm(s);
    expect(res.status).toBe(200);
    return { s, confirmed: res.json };
  }
  return {
    ...kit,
    confirm,
    qrPaid,
    showingQr,
    withdraw: (s: PayerSession, url = t.url) => call(url, 'POST', `/v1/checkout-sessions/${s.id}/withdraw-qr`, { key: kit.pk(), clientSecret: s.clientSecret }),
    refund: (s: PayerSession, body: Record<string, unknown> = {}) => t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: kit.sk(), body }),
    /** The QR code's image, fetched from this server. */
    image: (qrImageUrl: string) => fetch(`${t.url}${new URL(qrImageUrl).pathname}`),
    /** A session paid by its QR code. */
    async paidByQr(body: Record<string, unknown> = {}) {
      const { s } = await showingQr(body);
      const paid = await qrPaid(s);
      expect(paid.status).toBe(200);
      return { s, paymentId: paid.json.paymentId as number };
    },
  };
}

export const THREE_DS_RETURN_URL = 'https://shop.example.com/checkout/3ds-return?order=8841';

/** 3-D Secure on merchant A's sessions of 49.99 USD: confirm with the 3-D Secure card, and the sandbox challenge page. */
export function threeDSecureKit(t: TestServer) {
  const kit = checkoutKit(t, { amount: 49.99 });
  const tokenize = async (s: PayerSession, cardNumber: string = CARDS.threeDSecure) => (await kit.tokenize(s, cardNumber)).json.id as string;
  /** The challenge page's path on the test server (the answer's URL carries the configured public base URL). */
  const pagePath = (url: string) => new URL(url).pathname;
  const getPage = (path: string) => fetch(`${t.url}${path}`, { redirect: 'manual' });
  const formToken = (html: string) => /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return {
    ...kit,
    tokenize,
    pagePath,
    getPage,
    formToken,
    /** The session's retrieval answer. */
    retrieve: async (s: { id: string }) => (await kit.retrieve(s)).json,
    eventTypes: async (s: { id: string }) => (await kit.events(s)).map((e) => e.type),
    /** Answers the challenge page's form (with the token the page shows, unless one is given). */
    async answer(path: string, choice: 'complete' | 'fail', token?: string) {
      const form = new URLSearchParams({ answer: choice, token: token ?? formToken(await (await getPage(path)).text()) });
      return fetch(`${t.url}${path}`, { method: 'POST', body: form, redirect: 'manual' });
    },
    /** A session confirmed with the 3-D Secure card: its challenge is open. */
    async inChallenge(body: Record<string, unknown> = {}, confirmBody: Record<string, unknown> = { returnUrl: THREE_DS_RETURN_URL }) {
      const s = await kit.session(body);
      const res = await kit.confirm(s, { paymentMethodId: await tokenize(s), ...confirmBody });
      expect(res.status).toBe(200);
      return { s, res, path: pagePath(res.json.nextAction.url) };
    },
  };
}

/** A session of the saved-card operations: whose keys it is used with. */
export interface SavedCardSession extends PayerSession {
  merchant: MerchantCredentials;
  livemode: boolean;
}

/** Saved cards: customers, cards put on file by paying, the saved-card list, OTP verification, and the test message outbox. */
export function savedCardKit(t: TestServer) {
  let phoneSeq = 1000;
  const as = (s: SavedCardSession) => ({ key: keysOf(s.merchant, s.livemode).publishable, clientSecret: s.clientSecret });
  async function session(body: Record<string, unknown> = {}, merchant = t.merchantA, livemode = false): Promise<SavedCardSession> {
    const s = await createTestSession(t, merchant, livemode, body);
    return { id: s.id, clientSecret: s.clientSecret, merchant, livemode };
  }
  async function tokenize(s: SavedCardSession, cardNumber: string = CARDS.visa) {
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { ...as(s), body: cardDetails(cardNumber) });
    expect(res.status).toBe(201);
    return res.json.id as string;
  }
  const confirm = (s: SavedCardSession, paymentMethodId: string) =>
    t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...as(s), body: { paymentMethodId } });
  return {
    session,
    tokenize,
    confirm,
    /** A customer of the merchant with a phone of its own (so outbox filters by phone are exact). */
    async customer(merchant = t.merchantA, phone: string | null = `+1 415 555 ${phoneSeq++}`): Promise<{ id: number; phone: string | null }> {
      const res = await t.call('POST', '/v1/customers', {
        key: merchant.keys.test.secret,
        body: { email: `c${Math.random().toString(36).slice(2)}@example.com`, name: 'Ana Lopez', ...(phone ? { phone } : {}) },
      });
      expect(res.status).toBe(201);
      return { id: res.json.data.id, phone };
    },
    /** Pays a session of the customer with allowSavedCards, so the card goes on file; answers its id. */
    async cardOnFile(customerId: number, cardNumber: string = CARDS.visa, merchant = t.merchantA, livemode = false): Promise<string> {
      const s = await session({ clientId: customerId, allowSavedCards: true }, merchant, livemode);
      const pm = await tokenize(s, cardNumber);
      expect((await confirm(s, pm)).status).toBe(200);
      return pm;
    },
    savedSession: (customerId: number, extra: Record<string, unknown> = {}) => session({ clientId: customerId, allowSavedCards: true, ...extra }),
    listCards: (s: SavedCardSession) => t.call('GET', `/v1/checkout-sessions/${s.id}/saved-cards`, as(s)),
    verify: (s: SavedCardSession, paymentMethodId: string) =>
      t.call('POST', `/v1/checkout-sessions/${s.id}/saved-cards/verify`, { ...as(s), body: { paymentMethodId } }),
    confirmOtp: (s: SavedCardSession, verificationId: string, otp: string) =>
      t.call('POST', `/v1/checkout-sessions/${s.id}/saved-cards/confirm-otp`, { ...as(s), body: { verificationId, otp } }),
    /** The test message outbox (`query` with its leading `?`), as merchant A's test key (or `key`) reads it. */
    messages: (query = '', key = t.merchantA.keys.test.secret) => t.call('GET', `/v1/test-helpers/messages${query}`, { key }),
    methodRow: (id: string) => t.database.db.selectFrom('payment_methods').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  };
}

/** Sandbox disputes: card payments to dispute, the dispute test helpers, and what a dispute wrote (events, the merchant's balances). */
export function disputeKit(t: TestServer) {
  const sk = () => t.merchantA.keys.test.secret;
  /** A test session of `merchant` paid by card (with `body` over the defaults); its payment id, failed or not. */
  async function pay(merchant: MerchantCredentials, body: Record<string, unknown> = {}, cardNumber?: string): Promise<number> {
    const { session, paymentId } = await paidCardPayment(t, { merchant, body: { amount: 100, ...body }, cardNumber });
    if (paymentId !== undefined) return paymentId;
    // A declined card answers an error; its failed payment is still the session's.
    return (await t.database.db.selectFrom('payments').select('id').where('session_id', '=', session.id).executeTakeFirstOrThrow()).id;
  }
  return {
    pay,
    paid: (amount = 100) => pay(t.merchantA, { amount }),
    open: (paymentId: number, body: Record<string, unknown> = {}, key = sk()) =>
      t.call('POST', `/v1/test-helpers/payments/${paymentId}/dispute`, { key, body }),
    update: (id: string, body: Record<string, unknown>, key = sk()) => t.call('POST', `/v1/test-helpers/disputes/${id}/update`, { key, body }),
    close: (id: string, outcome: string, key = sk()) => t.call('POST', `/v1/test-helpers/disputes/${id}/close`, { key, body: { outcome } }),
    paymentOf: (paymentId: number) => t.database.db.selectFrom('payments').select(['invoice_id']).where('id', '=', paymentId).executeTakeFirstOrThrow(),
    /** The dispute events of a payment as delivered, each checked against the contract's schema for its type. */
    async disputeEvents(paymentId: number) {
      const rows = await t.database.db
        .selectFrom('events')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .where('type', 'like', 'dispute.%')
        .orderBy('seq')
        .execute();
      const bodies = rows.map((row) => eventEnvelope(toEventRecord(row)) as any);
      for (const body of bodies) expectEventMatchesContract(body);
      return bodies;
    },
    /** What a payment moved in the merchant's balances, in order. */
    merchantEntries: (paymentId: number) =>
      t.database.db
        .selectFrom('ledger_entries')
        .select(['type', 'account', 'amount'])
        .where('payment_id', '=', paymentId)
        .where('account', 'in', MERCHANT_BALANCES)
        .orderBy('id')
        .execute(),
  };
}
