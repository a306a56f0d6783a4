// Payments of the Commerce interface: `POST /v1/payment` (a one-item invoice raised and paid, or a
// card held), `GET /v1/payment/{id}` and `POST /v1/payment/{id}/capture`.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { CARD_EXPIRY, invoicePayments, THREE_DS, VISA } from '../support/commerce.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;

const card = (cardNumber = VISA) => ({ cardNumber, expiryDate: CARD_EXPIRY, cvv: '123' });
const create = (body: Record<string, unknown>, apiKey = sk(), headers: Record<string, string> = {}) =>
  t.call('POST', '/v1/payment', { apiKey, body: { currency: 'USD', ...body }, headers });
const capture = (id: number, body?: Record<string, unknown>, apiKey = sk()) => t.call('POST', `/v1/payment/${id}/capture`, { apiKey, body });
const read = (id: number, apiKey = sk()) => t.call('GET', `/v1/payment/${id}`, { apiKey });
const checkoutInvoice = async (id: number) => (await t.call('GET', `/v1/invoices/${id}`, { key: sk() })).json;
const ledgerOf = (paymentId: number) =>
  t.database.db.selectFrom('ledger_entries').select(['type', 'account', 'amount']).where('payment_id', '=', paymentId).orderBy('id').execute();
const eventTypes = async (paymentId: number) =>
  (await t.database.db.selectFrom('events').select('type').where('payment_id', '=', paymentId).orderBy('seq').execute()).map((e) => e.type);

describe('creating a payment', () => {
  it('charges a card at once: 201 Success, a paid one-item invoice named by the description, the client reference kept', async () => {
    const res = await create({
      amount: 45.5,
      paymentOptionId: 1,
      paymentMethod: 'CreditCard',
      card: card(),
      description: 'Gift card',
      clientReferenceNumber: 'ORDER-77',
      sourceInfo: { email: 'li@example.com', firstName: 'Li' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      amount: 45.5,
      currency: 'USD',
      status: 'Success',
      captureMethod: 'Automatic',
      holdStatus: null,
      authorizedAmount: 45.5,
      capturedAmount: 45.5,
      refundedAmount: 0,
      feePaid: 1.62,
      paymentMethod: 'CreditCard',
      paymentOptionId: 1,
      description: 'Gift card',
      clientReferenceNumber: 'ORDER-77',
      approvalAction: 'None',
      approvalDataOrUrl: null,
      authorizationExpiresAt: null,
      hostMessage: 'Approved',
    });
    const invoice = await checkoutInvoice(res.json.invoiceId);
    expect(invoice).toMatchObject({
      identifier: res.json.invoiceIdentifier,
      status: 'paid',
      total: 45.5,
      amountPaid: 45.5,
      customer: { email: 'li@example.com', firstName: 'Li' },
    });
    expect(invoice.lineItems).toMatchObject([{ name: 'Gift card', quantity: 1, unitAmount: 45.5 }]);
    expect(await read(res.json.id)).toMatchObject({ status: 200, json: res.json });
    expect(await eventTypes(res.json.id)).toEqual(['payment.succeeded']);
  });

  it('a declined card answers 201 Failed with the reason; a wallet option answers QrCode', async () => {
    const declined = await create({ amount: 20, paymentOptionId: 1, card: card('4000000000009995') });
    expect(declined.status).toBe(201);
    expect(declined.json).toMatchObject({ status: 'Failed', capturedAmount: 0, feePaid: 0, hostMessage: 'The card was declined: insufficient funds.' });
    const wallet = await create({ amount: 20, paymentOptionId: 3 });
    expect(wallet.json).toMatchObject({
      status: 'CustomerAuthRequired',
      approvalAction: 'QrCode',
      paymentMethod: 'GatewayWallet',
      paymentOptionId: 3,
      capturedAmount: 0,
    });
    expect(wallet.json.approvalDataOrUrl).toMatch(/^000201/);
  });

  it("refuses an amount below 1.00, a card without paymentOptionId, a method the hosted page does not offer, a hold on an option that cannot hold, and a paymentMethod that is not the option's", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ amount: 0.99, paymentOptionId: 1, card: card() }, 'amount_too_small', 'amount'],
      [{ amount: 10, card: card() }, 'parameter_missing', 'paymentOptionId'],
      [{ amount: 10, paymentMethod: 'BankTransfer' }, 'parameter_invalid', 'paymentMethod'],
      [{ amount: 10, paymentOptionId: 3, captureMethod: 'Manual' }, 'parameter_invalid', 'captureMethod'],
      [{ amount: 10, paymentOptionId: 1, paymentMethod: 'BankTransfer', card: card() }, 'parameter_invalid', 'paymentMethod'],
    ];
    for (const [body, code, param] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    // A funding source pays as for an invoice: one that does not exist for this merchant is a 404 naming it.
    const unknown = await create({ amount: 10, paymentOptionId: 1, fundingSourceId: 987654 });
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'resource_not_found', param: 'fundingSourceId' });
  });

  it('without paymentOptionId: 201 Pending with Redirect to the hosted page of its one-item invoice; once paid there it answers Success as the payment that paid it', async () => {
    const res = await create({ amount: 49.99, paymentMethod: 'CreditCard', description: 'Order #8841', clientReferenceNumber: 'order-8841' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      status: 'Pending',
      amount: 49.99,
      paymentMethod: null,
      paymentOptionId: null,
      cardBrand: null,
      captureMethod: 'Automatic',
      capturedAmount: 0,
      feePaid: 0,
      approvalAction: 'Redirect',
      hostMessage: 'Awaiting the payer on the hosted page',
      clientReferenceNumber: 'order-8841',
      paymentDateTime: null,
    });
    expect(res.json.approvalDataOrUrl).toMatch(new RegExp(`^https?://[^/]+/invoice/${res.json.invoiceIdentifier}$`));
    expect(await read(res.json.id)).toMatchObject({ status: 200, json: res.json });
    const page = await fetch(`${t.url}/invoice/${res.json.invoiceIdentifier}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Order #8841');
    const choose = await fetch(`${t.url}/invoice/${res.json.invoiceIdentifier}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ method: 'card' }),
      redirect: 'manual',
    });
    expect(choose.status).toBe(303);
    expect(choose.headers.get('location')).not.toContain(`/invoice/${res.json.invoiceIdentifier}`);
    // The payer pays the invoice (here through payinvoice, as the page's checkout would).
    const paidBy = await t.call('POST', '/api/payment/payinvoice', {
      apiKey: sk(),
      body: { invoiceIdentifier: res.json.invoiceIdentifier, paymentOptionId: 2, card: card() },
    });
    expect(paidBy.json).toMatchObject({ paymentStatusId: 'Success' });
    expect((await read(res.json.id)).json).toMatchObject({
      id: res.json.id,
      referenceNumber: res.json.referenceNumber,
      status: 'Success',
      capturedAmount: 49.99,
      feePaid: 1.75,
      paymentMethod: 'CreditCard',
      paymentOptionId: 2,
      cardBrand: 'visa',
      approvalAction: 'None',
      clientReferenceNumber: 'order-8841',
    });
    expect(await checkoutInvoice(res.json.invoiceId)).toMatchObject({ status: 'paid', amountPaid: 49.99 });
  });

  it("successUrl and cancelUrl go to the payment's invoice: its hosted page links back to cancelUrl, and to successUrl once paid", async () => {
    const urls = { successUrl: 'https://shop.example/thanks?order=8842', cancelUrl: 'https://shop.example/cart' };
    const res = await create({ amount: 12, paymentMethod: 'CreditCard', ...urls });
    expect(res.status, res.text).toBe(201);
    expect((await t.call('GET', `/v1/invoice/${res.json.invoiceId}`, { apiKey: sk() })).json).toMatchObject(urls);
    const page = await (await fetch(`${t.url}/invoice/${res.json.invoiceIdentifier}`)).text();
    expect(page).toContain('href="https://shop.example/cart"');
    const paid = await t.call('POST', '/api/payment/payinvoice', {
      apiKey: sk(),
      body: { invoiceIdentifier: res.json.invoiceIdentifier, paymentOptionId: 2, card: card() },
    });
    expect(paid.json).toMatchObject({ paymentStatusId: 'Success' });
    expect(await (await fetch(`${t.url}/invoice/${res.json.invoiceIdentifier}`)).text()).toContain('href="https://shop.example/thanks?order=8842"');
  });

  it('a 3-D Secure challenge of a payment returns the payer to its successUrl', async () => {
    const res = await create({ amount: 20, paymentOptionId: 1, card: card(THREE_DS), successUrl: 'https://shop.example/done' });
    expect(res.json).toMatchObject({ status: 'CustomerAuthRequired', approvalAction: 'Redirect' });
    const answered = await invoicePayments(t).answerChallenge(res.json.approvalDataOrUrl, 'complete');
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toMatch(/^https:\/\/shop\.example\/done/);
    expect((await read(res.json.id)).json).toMatchObject({ status: 'Success' });
  });

  it('without paymentOptionId, the payment waits as long as its invoice is payable, and is Cancelled with it', async () => {
    const res = await create({ amount: 15, description: 'Later' });
    expect(res.json).toMatchObject({ status: 'Pending', approvalAction: 'Redirect' });
    clock.advance(8 * 86_400);
    expect((await read(res.json.id)).json).toMatchObject({ status: 'Pending', approvalAction: 'Redirect' });
    expect((await t.call('POST', `/v1/invoices/${res.json.invoiceId}/void`, { key: sk() })).status).toBe(200);
    expect((await read(res.json.id)).json).toMatchObject({ status: 'Cancelled', approvalAction: 'None', approvalDataOrUrl: null, capturedAmount: 0 });
  });

  it('a repeat with the same Idempotency-Key answers the first payment again', async () => {
    const first = await create({ amount: 12, paymentOptionId: 2, card: card('5555555555554444') }, sk(), { 'idempotency-key': 'direct-1' });
    const again = await create({ amount: 12, paymentOptionId: 2, card: card('5555555555554444') }, sk(), { 'idempotency-key': 'direct-1' });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
  });
});

describe('holds and capture', () => {
  it('Manual holds the card (Pending, Authorized, 7 days); capturing part charges it, releases the rest and pays the invoice; a second capture answers 200 alreadyDone, nothing posted or sent again', async () => {
    const res = await create({ amount: 120, paymentOptionId: 1, card: card(), captureMethod: 'Manual', description: 'Deposit' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      status: 'Pending',
      captureMethod: 'Manual',
      holdStatus: 'Authorized',
      authorizedAmount: 120,
      capturedAmount: 0,
      feePaid: 0,
      hostMessage: 'Authorized',
    });
    expect(new Date(res.json.authorizationExpiresAt).getTime() - clock.now().getTime()).toBe(7 * 86_400_000);
    expect(await checkoutInvoice(res.json.invoiceId)).toMatchObject({ status: 'pending', total: 120 });
    const captured = await capture(res.json.id, { amount: 80 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.json).toMatchObject({
      id: res.json.id,
      status: 'Success',
      holdStatus: 'Captured',
      authorizedAmount: 120,
      capturedAmount: 80,
      feePaid: 2.62,
      authorizationExpiresAt: null,
    });
    expect(await checkoutInvoice(res.json.invoiceId)).toMatchObject({ status: 'paid', total: 80, amountPaid: 80 });
    expect(await ledgerOf(res.json.id)).toEqual(
      expect.arrayContaining([
        { type: 'payment', account: 'pending', amount: '80.0000' },
        { type: 'fee', account: 'pending', amount: '-2.6200' },
      ]),
    );
    expect((await ledgerOf(res.json.id)).filter((e) => MERCHANT_BALANCES.includes(e.account as 'pending'))).toHaveLength(2);
    expect(await eventTypes(res.json.id)).toEqual(['payment.authorized', 'payment.captured', 'payment.succeeded']);
    expect(captured.json.alreadyDone).toBe(false);
    const ledgerAfterCapture = await ledgerOf(res.json.id);
    const twice = await capture(res.json.id, { amount: 100 });
    expect(twice.status, twice.text).toBe(200);
    expect(twice.json).toMatchObject({ id: res.json.id, status: 'Success', holdStatus: 'Captured', capturedAmount: 80, feePaid: 2.62, alreadyDone: true });
    expect(await ledgerOf(res.json.id)).toEqual(ledgerAfterCapture);
    expect(await eventTypes(res.json.id)).toEqual(['payment.authorized', 'payment.captured', 'payment.succeeded']);
    expect(await checkoutInvoice(res.json.invoiceId)).toMatchObject({ status: 'paid', total: 80, amountPaid: 80 });
    expect((await read(res.json.id)).json).toMatchObject({ status: 'Success', capturedAmount: 80 });
  });

  it("without a body the whole hold is captured; more than authorized, an automatic payment, another tenant's or an unknown payment are refused", async () => {
    const hold = await create({ amount: 60, paymentOptionId: 2, card: card('5555555555554444'), captureMethod: 'Manual' });
    const tooMuch = await capture(hold.json.id, { amount: 60.01 });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.json.error).toMatchObject({ code: 'hold_not_capturable' });
    expect(tooMuch.json.error.message).toContain('more than was authorized');
    const theirs = await capture(hold.json.id, undefined, t.merchantB.keys.test.secret);
    expect(theirs.status).toBe(404);
    expect((await read(hold.json.id, t.merchantB.keys.test.secret)).status).toBe(404);
    expect((await read(hold.json.id, t.merchantA.keys.live.secret)).status).toBe(404);
    const whole = await capture(hold.json.id);
    expect(whole.json).toMatchObject({ status: 'Success', holdStatus: 'Captured', capturedAmount: 60, feePaid: 2.04 });
    const automatic = await create({ amount: 10, paymentOptionId: 1, card: card() });
    const notHold = await capture(automatic.json.id);
    expect(notHold.status).toBe(409);
    expect(notHold.json.error.message).toContain('not a card hold');
    expect((await capture(2_000_000_000)).status).toBe(404);
  });

  it('a hold that lapses is Cancelled with holdStatus Expired and cannot be captured', async () => {
    const hold = await create({ amount: 30, paymentOptionId: 1, card: card(), captureMethod: 'Manual' });
    clock.advance(7 * 86_400 + 1);
    const late = await capture(hold.json.id);
    expect(late.status).toBe(409);
    expect(late.json.error.message).toContain('lapsed');
    expect((await read(hold.json.id)).json).toMatchObject({ status: 'Cancelled', holdStatus: 'Expired', capturedAmount: 0 });
    expect(await checkoutInvoice(hold.json.invoiceId)).toMatchObject({ status: 'cancelled' });
  });
});
