// Receipts and customer messages (sendReceipt, notifyCustomer) in the test-mode outbox, read
// through the messages test helper; the outbox row's delivery status read from the database.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

const sk = () => t.merchantA.keys.test.secret;
const pk = () => t.merchantA.keys.test.publishable;
const future = new Date().getUTCFullYear() + 2;
let seq = 0;
const email = () => `payer${Date.now()}${seq++}@example.com`;

async function create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await t.call('POST', '/v1/checkout-sessions', {
    key: sk(),
    headers,
    body: { amount: 42.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; clientSecret: string; url: string | null };
}

async function pay(s: { id: string; clientSecret: string }, card = '4242424242424242', billingDetails?: Record<string, string>) {
  const client = { key: pk(), clientSecret: s.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
    ...client,
    body: { cardNumber: card, expiryMonth: 12, expiryYear: future, cvc: '123', ...(billingDetails ? { billingDetails } : {}) },
  });
  expect(pm.status, pm.text).toBe(201);
  const confirmed = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.json;
}

async function messagesTo(to: string, kind?: string) {
  const res = await t.call('GET', `/v1/test-helpers/messages?to=${encodeURIComponent(to)}${kind ? `&kind=${kind}` : ''}`, { key: sk() });
  expect(res.status).toBe(200);
  return res.json.data as Array<{ id: string; channel: string; kind: string; to: string; subject: string | null; body: string; sessionId: string }>;
}

const statusOf = async (id: string) =>
  (await t.database.db.selectFrom('messages').select(['status', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('receipts (sendReceipt)', () => {
  it('a card payment sends the payer a receipt: amount, merchant, card, reference, date; test mode only records it', async () => {
    const to = email();
    const s = await create({
      customerEmail: to,
      lineItems: [
        { name: 'Blue mug', quantity: 2, unitAmount: 12.5 },
        { name: 'Tea', quantity: 1, unitAmount: 17.5 },
      ],
    });
    await pay(s);
    const [receipt, ...more] = await messagesTo(to);
    expect(more).toEqual([]);
    expect(receipt).toMatchObject({ channel: 'email', kind: 'receipt', sessionId: s.id });
    expect(receipt!.subject).toContain('Merchant A');
    expect(receipt!.body).toContain('Amount paid: 42.50 USD');
    expect(receipt!.body).toContain('Visa ending in 4242');
    expect(receipt!.body).toContain('Blue mug x 2: 25.00 USD');
    expect(receipt!.body).toMatch(/Date: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    const reference = /Reference: (PAY-\S+)/.exec(receipt!.body)![1]!;
    expect(receipt!.subject).toContain(reference);
    expect(receipt!.body).not.toContain('4242424242424242');
    expect(await statusOf(receipt!.id)).toBe('recorded');
  });

  it("no receipt with sendReceipt false, nor without any email; the card's billing email is used when the session has none", async () => {
    const off = email();
    await pay(await create({ customerEmail: off, sendReceipt: false }));
    expect(await messagesTo(off)).toEqual([]);
    const before = (await t.call('GET', '/v1/test-helpers/messages?kind=receipt&limit=1', { key: sk() })).json.data[0]?.id;
    await pay(await create({}));
    expect((await t.call('GET', '/v1/test-helpers/messages?kind=receipt&limit=1', { key: sk() })).json.data[0]?.id).toBe(before);
    const billing = email();
    await pay(await create({}), '5555555555554444', { name: 'Ana', email: billing });
    const [receipt] = await messagesTo(billing, 'receipt');
    expect(receipt!.body).toContain('Mastercard ending in 4444');
  });

  it('a declined card sends no receipt', async () => {
    const to = email();
    const s = await create({ customerEmail: to });
    const client = { key: pk(), clientSecret: s.clientSecret };
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      ...client,
      body: { cardNumber: '4000000000009995', expiryMonth: 12, expiryYear: future, cvc: '123' },
    });
    const declined = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
    expect(declined.json.error.code).toBe('card_declined');
    expect(await messagesTo(to)).toEqual([]);
  });

  it('a hold sends nothing at authorization and a receipt for the captured amount at capture', async () => {
    const to = email();
    const s = await create({ customerEmail: to, captureMethod: 'manual' });
    const confirmed = await pay(s);
    expect(await messagesTo(to)).toEqual([]);
    const capture = await t.call('POST', `/v1/payments/${confirmed.paymentResult.id}/capture`, { key: sk(), body: { amount: 30 } });
    expect(capture.status, capture.text).toBe(200);
    const [receipt, ...more] = await messagesTo(to);
    expect(more).toEqual([]);
    expect(receipt!.body).toContain('Amount paid: 30.00 USD');
    expect(receipt!.body).toContain('Authorized earlier: 42.50 USD');
  });

  it('each refund sends a receipt with what was refunded and what is left', async () => {
    const to = email();
    const s = await create({ customerEmail: to });
    await pay(s);
    const part = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: { amount: 10, reason: 'requested_by_customer' } });
    expect(part.status, part.text).toBe(200);
    const [refund] = await messagesTo(to);
    expect(refund!.kind).toBe('receipt');
    expect(refund!.subject).toContain('refund');
    expect(refund!.body).toContain('Refunded now: 10.00 USD');
    expect(refund!.body).toContain('Refunded in all: 10.00 USD of 42.50 USD');
    expect(refund!.body).toContain('Left on the payment: 32.50 USD');
    expect(refund!.body).toContain(`Reference: ${part.json.paymentReferenceNumber}`);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: {} });
    const [rest] = await messagesTo(to);
    expect(rest!.body).toContain('Refunded now: 32.50 USD');
    expect(rest!.body).toContain('Left on the payment: 0.00 USD');
    const again = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: {} });
    expect(again.json.alreadyRefunded ?? again.json.data?.alreadyRefunded).toBe(true);
    expect(await messagesTo(to)).toHaveLength(3);
  });
});

describe('customer notifications (notifyCustomer)', () => {
  it('at creation, the invoice by email and by text, with the hosted page link', async () => {
    const to = email();
    const phone = `+1 415 555 ${String(Date.now() % 10000).padStart(4, '0')}`;
    const s = await create({
      mode: 'hosted',
      successUrl: 'https://shop.example.com/ok',
      notifyCustomer: true,
      customerEmail: to,
      customerPhone: phone,
      description: 'Order 1042',
    });
    const [mail] = await messagesTo(to);
    expect(mail).toMatchObject({ channel: 'email', kind: 'checkout_notification', sessionId: s.id });
    expect(mail!.subject).toContain('42.50 USD');
    expect(mail!.body).toContain('For: Order 1042');
    expect(mail!.body).toContain(`Pay here: ${s.url}`);
    const [text] = await messagesTo(phone);
    expect(text).toMatchObject({ channel: 'sms', kind: 'checkout_notification', subject: null });
    expect(text!.body).toContain(s.url!);
  });

  it('nothing when off (the merchant default), and once under an idempotent replay', async () => {
    const quiet = email();
    await create({ customerEmail: quiet });
    expect(await messagesTo(quiet)).toEqual([]);
    const to = email();
    const key = `notify-${Date.now()}`;
    const first = await create({ notifyCustomer: true, customerEmail: to }, { 'idempotency-key': key });
    const replay = await create({ notifyCustomer: true, customerEmail: to }, { 'idempotency-key': key });
    expect(replay.id).toBe(first.id);
    const sent = await messagesTo(to);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toContain('Complete the payment on Merchant A');
  });
});
