// Paying an invoice through the Commerce interface (`POST /api/payment/payinvoice`) by other means
// than a card typed in: the wallet QR code, bank transfers (their expiry on the clock) and a saved
// funding source. Invoices are created with the Checkout interface (`POST /v1/invoices`).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { CARD_EXPIRY, invoicePayments, MASTERCARD, THREE_DS, VISA } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { sk, newInvoice, payInvoice, readInvoice, ledgerOf, invoiceEventTypes } = invoicePayments(t);

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
    const received = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk() });
    expect(received.status, received.text).toBe(200);
    expect(received.json).toEqual({ paymentId: res.json.paymentId, status: 'succeeded', invoiceId: inv.id, invoiceStatus: 'paid' });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300 });
    const again = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk() });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('invalid_state');
  });

  it('a bank transfer answers Redirect to its page of instructions on this server, and the instructions (a valid IBAN, the reference, the amount, 7 days); its arrival pays a part of the invoice', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4, amount: 120 });
    expect(res.json).toMatchObject({
      paymentStatusId: 'CustomerAuthRequired',
      isSuccess: true,
      approvalAction: 'Redirect',
      cardBrand: null,
      paymentMethod: 'BankTransfer',
      amountPaid: 0,
      amountDue: 300,
      hostMessage: 'Awaiting the bank transfer',
    });
    const instructions = res.json.bankTransferInstructions;
    expect(instructions).toMatchObject({ bankName: 'Till Sandbox Bank', bic: 'TILLGB2L', reference: res.json.referenceNumber, amount: 120, currency: 'USD' });
    const pagePath = `/invoice/${inv.identifier}/bank-transfer/${res.json.paymentId}`;
    expect(res.json.approvalDataOrUrl).toMatch(new RegExp(`^https?://[^/]+${pagePath}$`));
    const page = await fetch(`${t.url}${pagePath}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await page.text();
    for (const shown of [instructions.iban, 'TILLGB2L', res.json.referenceNumber, '$120.00']) expect(text).toContain(shown);
    // The page is found by the invoice's identifier and one of its bank-transfer payments only.
    const other = await newInvoice();
    for (const wrong of [
      `/invoice/${other.identifier}/bank-transfer/${res.json.paymentId}`,
      `/invoice/${inv.identifier}/bank-transfer/999999`,
      `/invoice/not-a-uuid/bank-transfer/1`,
    ])
      expect((await fetch(`${t.url}${wrong}`)).status, wrong).toBe(404);
    expect(new Date(instructions.expiresAt).getTime() - clock.now().getTime()).toBe(7 * 86_400_000);
    // ISO 13616: moving the first four characters to the end, the number is 1 modulo 97.
    const iban: string = instructions.iban;
    const numeric = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
    expect(BigInt(numeric) % 97n).toBe(1n);
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
    expect(shown.json).toMatchObject({
      status: 'CustomerAuthRequired',
      approvalAction: 'Redirect',
      approvalDataOrUrl: res.json.approvalDataOrUrl,
      amount: 120,
      paymentOptionId: 4,
    });
    const received = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk() });
    expect(received.json).toEqual({ paymentId: res.json.paymentId, status: 'succeeded', invoiceId: inv.id, invoiceStatus: 'partially_paid' });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 120, amountDue: 180 });
    expect(await ledgerOf(res.json.paymentId)).toEqual([
      { type: 'payment', account: 'pending', amount: '120.0000' },
      { type: 'fee', account: 'pending', amount: '-3.7800' },
    ]);
    const paid = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
    expect(paid.json).toMatchObject({ status: 'Success', approvalAction: 'None', capturedAmount: 120, feePaid: 3.78 });
    expect(await (await fetch(`${t.url}${pagePath}`)).text()).toContain('data-notice="received"');
  });

  it('an unpaid bank transfer expires after 7 days on the clock; the receive helper then answers 409 and the invoice stays payable', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4 });
    clock.advance(7 * 86_400 + 1);
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
    expect(shown.json).toMatchObject({ status: 'Cancelled', approvalAction: 'None' });
    const late = await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk() });
    expect(late.status).toBe(409);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });
});

describe('paying from a funding source (fundingSourceId)', () => {
  const register = async (cardNumber: string, apiKey = sk()): Promise<number> => {
    const res = await t.call('POST', '/v1/payment/RegisterCard', { apiKey, body: { card: { cardNumber, expiryDate: CARD_EXPIRY, cvv: '123' } } });
    expect(res.status, res.text).toBe(200);
    return res.json.fundingSourceId;
  };

  it('a verified source pays the whole invoice at once through any card option, as a card on file, the brand recorded', async () => {
    const source = await register(MASTERCARD);
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, fundingSourceId: source });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      amountPaid: 300,
      amountDue: 0,
      feePaid: 9,
      paymentStatusId: 'Success',
      paymentMethod: 'CreditCard',
      cardBrand: 'mastercard',
      isSuccess: true,
      approvalAction: 'None',
      is3DSecureAuth: false,
    });
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'paid', amountPaid: 300, amountDue: 0 });
    expect(await invoiceEventTypes(inv.id)).toContain('invoice.paid');
  });

  it("an unknown or another merchant's source is a 404, a source with an option that is not a card a 400: nothing is paid", async () => {
    const inv = await newInvoice();
    const visa = await register(VISA);
    const other = await t.newMerchant('Other payer');
    const theirs = await register(VISA, other.keys.test.secret);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ fundingSourceId: 999999, paymentOptionId: 1 }, 404, 'fundingSourceId'],
      [{ fundingSourceId: theirs, paymentOptionId: 1 }, 404, 'fundingSourceId'],
      [{ fundingSourceId: visa, paymentOptionId: 4 }, 400, 'paymentOptionId'],
    ];
    for (const [body, status, param] of cases) {
      const res = await payInvoice({ invoiceId: inv.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });

  it('a source not verified, or blocked, is a Failed payment: 200, isSuccess false, the reason in hostMessage, recorded; the invoice stays payable', async () => {
    const inv = await newInvoice();
    const unverified = await register(THREE_DS);
    const blocked = await register(VISA);
    await t.database.db.updateTable('funding_sources').set({ status: 'Blocked' }).where('id', '=', blocked).execute();
    for (const [source, reason] of [
      [unverified, 'not verified'],
      [blocked, 'Blocked'],
    ] as const) {
      const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 2, fundingSourceId: source });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ paymentStatusId: 'Failed', isSuccess: false, amountPaid: 0, amountDue: 300, approvalAction: 'None' });
      expect(res.json.hostMessage).toContain(reason);
      const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: sk() });
      expect(shown.json).toMatchObject({ status: 'Failed', paymentOptionId: 2, invoiceId: inv.id });
      expect(await ledgerOf(res.json.paymentId)).toEqual([]);
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
    expect(await invoiceEventTypes(inv.id)).toEqual(['invoice.payment_failed', 'invoice.payment_failed']);
  });
});
