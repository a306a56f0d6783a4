// Paying an invoice through the Commerce interface (`POST /api/payment/payinvoice`): the sandbox
// cards, 3-D Secure, the wallet QR code, bank transfers, part payments and the errors. Invoices are
// created with the Checkout interface (`POST /v1/invoices`): both interfaces share them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { ManualClock } from '../../server/shared/clock.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';
import { startTestServer, type TestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
let t: TestServer;
let sk: string;
beforeAll(async () => {
  t = await startTestServer({ clock });
  sk = t.merchantA.keys.test.secret;
});
afterAll(async () => {
  await t?.close();
});

const publicBaseUrl = loadConfig({ NODE_ENV: 'test' }).publicBaseUrl;
const expiry = `12/${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, '0')}`;
const card = (cardNumber: string) => ({ name: 'Ana Lopez', cardNumber, expiryDate: expiry, cvv: '123' });
const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const THREE_DS = '4000000000003220';
const INSUFFICIENT = '4000000000009995';

/** A Checkout invoice of 2 × 150.00 USD = 300.00. */
async function newInvoice(key = sk): Promise<{ id: number; identifier: string }> {
  const res = await t.call('POST', '/v1/invoices', {
    key,
    body: { customer: { email: 'ana@example.com', firstName: 'Ana' }, currency: 'USD', lineItems: [{ name: 'Design', quantity: 2, unitAmount: 150 }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const payInvoice = (body: Record<string, unknown>, apiKey = sk, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/payment/payinvoice', { apiKey, body, headers });
const readInvoice = async (id: number) => (await t.call('GET', `/v1/invoices/${id}`, { key: sk })).json;
const eventsOf = async (invoiceId: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'payment_id', 'session_id'])
      .where('merchant_id', '=', t.merchantA.merchantId)
      .orderBy('seq')
      .execute()
  ).filter((e) => e.type.startsWith('checkout.session') || e.payment_id !== null || e.type.startsWith('invoice.'));
const ledgerOf = (paymentId: number) =>
  t.database.db
    .selectFrom('ledger_entries')
    .select(['type', 'account', 'amount'])
    .where('account', 'in', MERCHANT_BALANCES)
    .where('payment_id', '=', paymentId)
    .orderBy('id')
    .execute();
const invoiceEventTypes = async (invoiceId: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where('type', 'like', 'invoice.%')
      .orderBy('seq')
      .execute()
  )
    .filter((e) => JSON.stringify(e.data).includes(`"id":${invoiceId},`))
    .map((e) => e.type);
const pagePath = (url: string) => new URL(url).pathname;
async function answerChallenge(url: string, choice: 'complete' | 'fail') {
  const html = await (await fetch(`${t.url}${pagePath(url)}`)).text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return fetch(`${t.url}${pagePath(url)}`, { method: 'POST', body: new URLSearchParams({ answer: choice, token }), redirect: 'manual' });
}

describe('paying by card', () => {
  it('a Visa card pays the whole invoice at once: Success, None, the fee, the invoice paid, the ledger, payment.succeeded and invoice.paid', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA) });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      invoiceIdentifier: inv.identifier,
      amountPaid: 300,
      amountDue: 0,
      feePaid: 9,
      currency: 'USD',
      paymentStatusId: 'Success',
      paymentMethod: 'CreditCard',
      isSuccess: true,
      approvalAction: 'None',
      approvalDataOrUrl: null,
      is3DSecureAuth: false,
      hostMessage: 'Approved',
      clientReferenceNumber: null,
    });
    expect(res.json.authorizationCode).toMatch(/^[0-9A-F]{6}$/);
    expect(res.json.referenceNumber).toMatch(/^PAY/);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300, amountDue: 0 });
    expect(await ledgerOf(res.json.paymentId)).toEqual([
      { type: 'payment', account: 'pending', amount: '300.0000' },
      { type: 'fee', account: 'pending', amount: '-9.0000' },
    ]);
    const events = (await eventsOf(inv.id)).filter((e) => e.payment_id === res.json.paymentId || e.type.startsWith('checkout.session'));
    expect(events.map((e) => e.type)).toContain('payment.succeeded');
    // The session behind the payment is the Commerce interface's means: no checkout.session.* webhooks.
    expect(events.filter((e) => e.type.startsWith('checkout.session') && e.session_id === events[0]!.session_id)).toEqual([]);
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.paid']);
  });

  it('a Mastercard card pays with the Mastercard option; a card of another brand than the option answers 400 naming card', async () => {
    const inv = await newInvoice();
    const wrong = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(MASTERCARD) });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toMatchObject({ code: 'parameter_invalid', param: 'card' });
    expect(wrong.json.error.message).toContain('Visa');
    const res = await payInvoice({ invoiceIdentifier: inv.identifier, paymentOptionId: 2, card: card(MASTERCARD) });
    expect(res.json).toMatchObject({ paymentStatusId: 'Success', isSuccess: true, amountPaid: 300, amountDue: 0 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid' });
  });

  it('the insufficient-funds card declines: 200, Failed, isSuccess false, hostMessage; the invoice stays payable, payment.failed and invoice.payment_failed', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(INSUFFICIENT) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      paymentStatusId: 'Failed',
      isSuccess: false,
      amountPaid: 0,
      amountDue: 300,
      feePaid: 0,
      approvalAction: 'None',
      authorizationCode: null,
      hostMessage: 'The card was declined: insufficient funds.',
    });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
    expect(await ledgerOf(res.json.paymentId)).toEqual([]);
    expect((await eventsOf(inv.id)).filter((e) => e.payment_id === res.json.paymentId).map((e) => e.type)).toEqual(['payment.failed']);
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.payment_failed']);
    const again = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA) });
    expect(again.json).toMatchObject({ paymentStatusId: 'Success', amountDue: 0 });
  });

  it('the 3-D Secure card answers Redirect to the sandbox challenge page; completing it pays the invoice', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(THREE_DS) });
    expect(res.json).toMatchObject({
      paymentStatusId: 'CustomerAuthRequired',
      isSuccess: true,
      approvalAction: 'Redirect',
      is3DSecureAuth: true,
      amountPaid: 0,
      amountDue: 300,
      hostMessage: 'Customer authentication required',
    });
    expect(res.json.approvalDataOrUrl).toMatch(new RegExp(`^${publicBaseUrl.replace(/[.]/g, '\\.')}/3ds/3ds_[A-Za-z0-9]{40}$`));
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending' });
    const waiting = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(waiting.json).toMatchObject({
      status: 'CustomerAuthRequired',
      approvalAction: 'Redirect',
      approvalDataOrUrl: res.json.approvalDataOrUrl,
      invoiceId: inv.id,
    });
    const answered = await answerChallenge(res.json.approvalDataOrUrl, 'complete');
    expect(answered.status).toBeLessThan(400);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300 });
    const paid = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(paid.json).toMatchObject({
      id: res.json.paymentId,
      status: 'Success',
      approvalAction: 'None',
      capturedAmount: 300,
      feePaid: 9,
      paymentMethod: 'CreditCard',
      paymentOptionId: 1,
      invoiceIdentifier: inv.identifier,
    });
  });

  it('failing the 3-D Secure challenge fails the payment and the invoice stays payable', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(THREE_DS) });
    await answerChallenge(res.json.approvalDataOrUrl, 'fail');
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
    const failed = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(failed.json).toMatchObject({ status: 'Failed', capturedAmount: 0 });
    expect(failed.json.hostMessage).toBeTruthy();
  });
});

describe('part payments', () => {
  it('an amount below what is due makes the invoice partially paid; the payment of the rest makes it paid', async () => {
    const inv = await newInvoice();
    const first = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA), amount: 100 });
    expect(first.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 100, amountDue: 200, feePaid: 3.2 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 100, amountDue: 200 });
    expect(await invoiceEventTypes(inv.id)).toEqual([]);
    const tooMuch = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA), amount: 200.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const rest = await payInvoice({ invoiceId: inv.id, paymentOptionId: 2, card: card(MASTERCARD) });
    expect(rest.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 200, amountDue: 0, feePaid: 6.1 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300, amountDue: 0 });
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.paid']);
  });

  it('an amount below 1.00 answers amount_too_small, and more decimals than the currency has answers 400', async () => {
    const inv = await newInvoice();
    const small = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA), amount: 0.5 });
    expect(small.status).toBe(400);
    expect(small.json.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    const digits = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA), amount: 10.005 });
    expect(digits.status).toBe(400);
    expect(digits.json.error.param).toBe('amount');
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });
});

describe('paying by wallet and bank transfer', () => {
  it('the wallet answers QrCode with the EMV payload; the receive test helper pays it and the invoice', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 3 });
    expect(res.json).toMatchObject({
      paymentStatusId: 'CustomerAuthRequired',
      isSuccess: true,
      approvalAction: 'QrCode',
      paymentMethod: 'GatewayWallet',
      amountPaid: 0,
      amountDue: 300,
      hostMessage: 'Scan to approve',
    });
    expect(res.json.approvalDataOrUrl).toMatch(/^000201010212.*5406300\.00/);
    const received = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk });
    expect(received.status, received.text).toBe(200);
    expect(received.json).toEqual({ paymentId: res.json.paymentId, status: 'succeeded', invoiceId: inv.id, invoiceStatus: 'paid' });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300 });
    const again = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('invalid_state');
  });

  it('a bank transfer answers the instructions (a valid IBAN, the reference, the amount, 7 days); its arrival pays a part of the invoice', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4, amount: 120 });
    expect(res.json).toMatchObject({
      paymentStatusId: 'CustomerAuthRequired',
      isSuccess: true,
      approvalAction: 'BankTransfer',
      paymentMethod: 'BankTransfer',
      amountPaid: 0,
      amountDue: 300,
      hostMessage: 'Awaiting the bank transfer',
    });
    const instructions = res.json.bankTransferInstructions;
    expect(instructions).toMatchObject({ bankName: 'Till Sandbox Bank', bic: 'TILLGB2L', reference: res.json.referenceNumber, amount: 120, currency: 'USD' });
    expect(res.json.approvalDataOrUrl).toBe(res.json.referenceNumber);
    expect(new Date(instructions.expiresAt).getTime() - clock.now().getTime()).toBe(7 * 86_400_000);
    // ISO 13616: moving the first four characters to the end, the number is 1 modulo 97.
    const iban: string = instructions.iban;
    const numeric = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
    expect(BigInt(numeric) % 97n).toBe(1n);
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(shown.json).toMatchObject({
      status: 'CustomerAuthRequired',
      approvalAction: 'BankTransfer',
      approvalDataOrUrl: res.json.referenceNumber,
      amount: 120,
      paymentOptionId: 4,
    });
    const received = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk });
    expect(received.json).toEqual({ paymentId: res.json.paymentId, status: 'succeeded', invoiceId: inv.id, invoiceStatus: 'partially_paid' });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 120, amountDue: 180 });
    expect(await ledgerOf(res.json.paymentId)).toEqual([
      { type: 'payment', account: 'pending', amount: '120.0000' },
      { type: 'fee', account: 'pending', amount: '-3.7800' },
    ]);
    const paid = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(paid.json).toMatchObject({ status: 'Success', approvalAction: 'None', capturedAmount: 120, feePaid: 3.78 });
  });

  it('an unpaid bank transfer expires after 7 days on the clock; the receive helper then answers 409 and the invoice stays payable', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4 });
    clock.advance(7 * 86_400 + 1);
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk });
    expect(shown.json).toMatchObject({ status: 'Cancelled', approvalAction: 'None' });
    const late = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk });
    expect(late.status).toBe(409);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });
});

describe('what cannot be paid', () => {
  it('an unknown or disabled payment option answers 400 naming paymentOptionId', async () => {
    const inv = await newInvoice();
    const unknown = await payInvoice({ invoiceId: inv.id, paymentOptionId: 9, card: card(VISA) });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentOptionId' });
    const merchant = await t.database.db.selectFrom('merchants').select('payment_options').where('id', '=', t.merchantB.merchantId).executeTakeFirstOrThrow();
    const options = merchant.payment_options.map((o) => (o.id === 4 ? { ...o, enabled: false } : o));
    await t.database.db
      .updateTable('merchants')
      .set({ payment_options: JSON.stringify(options) })
      .where('id', '=', t.merchantB.merchantId)
      .execute();
    const theirs = await newInvoice(t.merchantB.keys.test.secret);
    const disabled = await payInvoice({ invoiceId: theirs.id, paymentOptionId: 4 }, t.merchantB.keys.test.secret);
    expect(disabled.status).toBe(400);
    expect(disabled.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentOptionId' });
  });

  it('a paid or cancelled invoice answers 409 invoice_not_payable; nothing is charged', async () => {
    const inv = await newInvoice();
    await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA) });
    const paid = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: card(VISA) });
    expect(paid.status, paid.text).toBe(409);
    expect(paid.json.error).toMatchObject({ code: 'invoice_not_payable' });
    const voided = await newInvoice();
    await t.call('POST', `/v1/invoices/${voided.id}/void`, { key: sk });
    const cancelled = await payInvoice({ invoiceId: voided.id, paymentOptionId: 3 });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.error.message).toContain('cancelled');
    expect(await t.database.db.selectFrom('payments').select('id').where('invoice_id', '=', voided.id).execute()).toEqual([]);
  });

  it("another merchant's or mode's invoice answers 404 invoice_not_found, by id and by identifier", async () => {
    const theirs = await newInvoice(t.merchantB.keys.test.secret);
    for (const body of [{ invoiceId: theirs.id }, { invoiceIdentifier: theirs.identifier }]) {
      const res = await payInvoice({ ...body, paymentOptionId: 1, card: card(VISA) });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('invoice_not_found');
    }
    const mine = await newInvoice();
    const live = await payInvoice({ invoiceId: mine.id, paymentOptionId: 1, card: card(VISA) }, t.merchantA.keys.live.secret);
    expect(live.status).toBe(404);
  });

  it('no invoice, two that differ, a card option without card, an invalid card, sourceAccountId with another option or the balance option without it: 400 naming the field', async () => {
    const inv = await newInvoice();
    const other = await newInvoice();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ paymentOptionId: 1, card: card(VISA) }, 'parameter_missing', 'invoiceId'],
      [{ invoiceId: inv.id, invoiceIdentifier: other.identifier, paymentOptionId: 1, card: card(VISA) }, 'validation_error', 'invoiceIdentifier'],
      [{ invoiceId: inv.id, paymentOptionId: 1 }, 'parameter_missing', 'card'],
      [{ invoiceId: inv.id, paymentOptionId: 1, card: card('4242424242424241') }, 'invalid_card', 'card.cardNumber'],
      [{ invoiceId: inv.id, paymentOptionId: 1, card: { ...card(VISA), expiryDate: '01/20' } }, 'invalid_card', 'card.expiryDate'],
      [{ invoiceId: inv.id, paymentOptionId: 3, sourceAccountId: 7 }, 'parameter_invalid', 'paymentOptionId'],
      [{ invoiceId: inv.id, paymentOptionId: 5 }, 'parameter_missing', 'sourceAccountId'],
    ];
    for (const [body, code, param] of cases) {
      const res = await payInvoice(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });

  it('a repeat with the same Idempotency-Key answers the first payment again and pays once', async () => {
    const inv = await newInvoice();
    const body = { invoiceId: inv.id, paymentOptionId: 1, card: card(VISA), amount: 50 };
    const first = await payInvoice(body, sk, { 'idempotency-key': `pay-${inv.id}` });
    const again = await payInvoice(body, sk, { 'idempotency-key': `pay-${inv.id}` });
    expect(first.status, first.text).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 50 });
  });
});

describe('paying from a funding source (fundingSourceId)', () => {
  const register = async (cardNumber: string, apiKey = sk): Promise<number> => {
    const res = await t.call('POST', '/v1/payment/RegisterCard', { apiKey, body: { card: { cardNumber, expiryDate: expiry, cvv: '123' } } });
    expect(res.status, res.text).toBe(200);
    return res.json.fundingSourceId;
  };

  it('a verified source pays the whole invoice at once through the card option of its brand, as a card on file', async () => {
    const source = await register(MASTERCARD);
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 2, fundingSourceId: source });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      amountPaid: 300,
      amountDue: 0,
      feePaid: 9,
      paymentStatusId: 'Success',
      paymentMethod: 'CreditCard',
      isSuccess: true,
      approvalAction: 'None',
      is3DSecureAuth: false,
    });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300, amountDue: 0 });
    expect(await invoiceEventTypes(inv.id)).toContain('invoice.paid');
  });

  it("an unknown or another merchant's source is a 404, one of another brand a 400, one not verified a 409: nothing is paid", async () => {
    const inv = await newInvoice();
    const visa = await register(VISA);
    const unverified = await register(THREE_DS);
    const other = await t.newMerchant('Other payer');
    const theirs = await register(VISA, other.keys.test.secret);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ fundingSourceId: 999999, paymentOptionId: 1 }, 404, 'fundingSourceId'],
      [{ fundingSourceId: theirs, paymentOptionId: 1 }, 404, 'fundingSourceId'],
      [{ fundingSourceId: visa, paymentOptionId: 2 }, 400, 'fundingSourceId'],
      [{ fundingSourceId: visa, paymentOptionId: 4 }, 400, 'paymentOptionId'],
      [{ fundingSourceId: unverified, paymentOptionId: 1 }, 409, 'fundingSourceId'],
    ];
    for (const [body, status, param] of cases) {
      const res = await payInvoice({ invoiceId: inv.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });
});
