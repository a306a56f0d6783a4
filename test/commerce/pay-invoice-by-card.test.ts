// Paying an invoice by card through the Commerce interface (`POST /api/payment/payinvoice`): the
// sandbox cards, 3-D Secure, and part payments. Invoices are created with the Checkout interface
// (`POST /v1/invoices`): both interfaces share them.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { ManualClock } from '../../server/shared/clock.js';
import { commerceCard, INSUFFICIENT, invoicePayments, MASTERCARD, THREE_DS, VISA } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { sk, newInvoice, payInvoice, readInvoice, eventsOf, ledgerOf, invoiceEventTypes, answerChallenge } = invoicePayments(t);

const publicBaseUrl = loadConfig({ NODE_ENV: 'test' }).publicBaseUrl;

describe('paying by card', () => {
  it('a Visa card pays the whole invoice at once: Success, None, the fee, the invoice paid, the ledger, payment.succeeded and invoice.paid', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA) });
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
    const events = (await eventsOf()).filter((e) => e.payment_id === res.json.paymentId || e.type.startsWith('checkout.session'));
    expect(events.map((e) => e.type)).toContain('payment.succeeded');
    // The session behind the payment is the Commerce interface's means: no checkout.session.* webhooks.
    expect(events.filter((e) => e.type.startsWith('checkout.session') && e.session_id === events[0]!.session_id)).toEqual([]);
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.paid']);
  });

  it('any CreditCard option takes every brand the sandbox knows: a Mastercard through option 1, American Express, Discover and JCB; the payment records the brand and the option', async () => {
    const cards: [number, string, string, string][] = [
      [1, MASTERCARD, '123', 'mastercard'],
      [2, VISA, '123', 'visa'],
      [1, '378282246310005', '1234', 'amex'],
      [2, '6011111111111117', '123', 'discover'],
      [1, '3530111333300000', '123', 'jcb'],
    ];
    for (const [option, cardNumber, cvv, brand] of cards) {
      const inv = await newInvoice();
      const res = await payInvoice({ invoiceIdentifier: inv.identifier, paymentOptionId: option, card: { ...commerceCard(cardNumber), cvv } });
      expect(res.status, `${brand} ${res.text}`).toBe(200);
      expect(res.json, brand).toMatchObject({
        paymentStatusId: 'Success',
        isSuccess: true,
        paymentMethod: 'CreditCard',
        cardBrand: brand,
        amountPaid: 300,
        amountDue: 0,
      });
      expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid' });
      const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
      expect(shown.json, brand).toMatchObject({ status: 'Success', paymentOptionId: option, paymentMethod: 'CreditCard', cardBrand: brand });
      const row = await t.database.db
        .selectFrom('payments')
        .select(['card_brand', 'payment_option_id'])
        .where('id', '=', res.json.paymentId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ card_brand: brand, payment_option_id: option });
    }
  });

  it('a card number that fails its check, an expired card or a CVV of the wrong length is a Failed payment: 200, isSuccess false, the reason in hostMessage, the brand recorded, payment.failed', async () => {
    const inv = await newInvoice();
    const cases: [Record<string, unknown>, string][] = [
      [commerceCard('4242424242424241'), 'The card number is not valid. Check the digits.'],
      [{ ...commerceCard(VISA), expiryDate: '01/20' }, 'The card has expired.'],
      [{ ...commerceCard(VISA), cvv: '1234' }, 'The CVC must have 3 digits for this card.'],
    ];
    for (const [card, message] of cases) {
      const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({
        paymentStatusId: 'Failed',
        isSuccess: false,
        hostMessage: message,
        cardBrand: 'visa',
        amountPaid: 0,
        amountDue: 300,
        approvalAction: 'None',
        authorizationCode: null,
      });
      const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
      expect(shown.json).toMatchObject({ status: 'Failed', hostMessage: message, paymentOptionId: 1, invoiceId: inv.id });
      expect((await eventsOf()).filter((e) => e.payment_id === res.json.paymentId).map((e) => e.type)).toEqual(['payment.failed']);
      expect(await ledgerOf(res.json.paymentId)).toEqual([]);
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.payment_failed', 'invoice.payment_failed', 'invoice.payment_failed']);
    // Nothing of the card number is kept but what a payment may keep.
    const rows = await t.database.db.selectFrom('payments').selectAll().where('invoice_id', 'is', null).where('failure_code', '=', 'invalid_card').execute();
    expect(JSON.stringify(rows)).not.toContain('4242424242424241');
  });

  it('the insufficient-funds card declines: 200, Failed, isSuccess false, hostMessage; the invoice stays payable, payment.failed and invoice.payment_failed', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(INSUFFICIENT) });
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
    expect((await eventsOf()).filter((e) => e.payment_id === res.json.paymentId).map((e) => e.type)).toEqual(['payment.failed']);
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.payment_failed']);
    const again = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA) });
    expect(again.json).toMatchObject({ paymentStatusId: 'Success', amountDue: 0 });
  });

  it('the 3-D Secure card answers Redirect to the sandbox challenge page; completing it pays the invoice', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(THREE_DS) });
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
    const waiting = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
    expect(waiting.json).toMatchObject({
      status: 'CustomerAuthRequired',
      approvalAction: 'Redirect',
      approvalDataOrUrl: res.json.approvalDataOrUrl,
      invoiceId: inv.id,
    });
    const answered = await answerChallenge(res.json.approvalDataOrUrl, 'complete');
    expect(answered.status).toBeLessThan(400);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300 });
    const paid = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
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
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(THREE_DS) });
    await answerChallenge(res.json.approvalDataOrUrl, 'fail');
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
    const failed = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
    expect(failed.json).toMatchObject({ status: 'Failed', capturedAmount: 0 });
    expect(failed.json.hostMessage).toBeTruthy();
  });
});

describe('part payments', () => {
  it('an amount below what is due makes the invoice partially paid; the payment of the rest makes it paid', async () => {
    const inv = await newInvoice();
    const first = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA), amount: 100 });
    expect(first.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 100, amountDue: 200, feePaid: 3.2 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 100, amountDue: 200 });
    expect(await invoiceEventTypes(inv.id)).toEqual([]);
    const tooMuch = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA), amount: 200.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const rest = await payInvoice({ invoiceId: inv.id, paymentOptionId: 2, card: commerceCard(MASTERCARD) });
    expect(rest.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 200, amountDue: 0, feePaid: 6.1 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300, amountDue: 0 });
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.paid']);
  });

  it('an amount below 1.00 answers amount_too_small, and more decimals than the currency has answers 400', async () => {
    const inv = await newInvoice();
    const small = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA), amount: 0.5 });
    expect(small.status).toBe(400);
    expect(small.json.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    const digits = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA), amount: 10.005 });
    expect(digits.status).toBe(400);
    expect(digits.json.error.param).toBe('amount');
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });
});
