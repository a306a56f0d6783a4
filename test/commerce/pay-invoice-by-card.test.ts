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

  it('a Mastercard card pays with the Mastercard option; a card of another brand than the option answers 400 naming card', async () => {
    const inv = await newInvoice();
    const wrong = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(MASTERCARD) });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toMatchObject({ code: 'parameter_invalid', param: 'card' });
    expect(wrong.json.error.message).toContain('Visa');
    const res = await payInvoice({ invoiceIdentifier: inv.identifier, paymentOptionId: 2, card: commerceCard(MASTERCARD) });
    expect(res.json).toMatchObject({ paymentStatusId: 'Success', isSuccess: true, amountPaid: 300, amountDue: 0 });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid' });
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
