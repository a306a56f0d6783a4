// Refunds through `payinvoice` (`originalPaymentReference`): the referenced payment is refunded, in
// part or in full, through the ledger, and nothing is ever charged. Refunds follow the rail: a bank
// transfer cannot be refunded through the API (`method_not_supported`). The balance rail (back to
// the account that paid) is in pay-from-balance.test.ts.
import { describe, expect, it } from 'vitest';
import { commerceCard, invoicePayments } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { sk, newInvoice, payInvoice, readInvoice, ledgerOf } = invoicePayments(t);

const paymentsOf = (invoiceId: number) =>
  t.database.db.selectFrom('payments').select(['id', 'status', 'refunded_amount']).where('invoice_id', '=', invoiceId).orderBy('id').execute();

describe('originalPaymentReference refunds the payment it names', () => {
  it('on a part-paid invoice it refunds (part, then the rest) and never charges the card sent with it', async () => {
    const inv = await newInvoice(); // 300.00
    const paid = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(), amount: 100 });
    expect(paid.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 100, amountDue: 200 });
    const reference = paid.json.referenceNumber;
    const part = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(), originalPaymentReference: reference, amount: 30 });
    expect(part.status, part.text).toBe(200);
    expect(part.json).toMatchObject({
      paymentId: paid.json.paymentId,
      referenceNumber: reference,
      paymentStatusId: 'Success',
      isSuccess: true,
      paymentMethod: 'CreditCard',
      amountPaid: 0,
      feePaid: 0,
      amountDue: 200,
      approvalAction: 'None',
      hostMessage: 'Refunded 30.00 USD',
      refund: { amount: 30, alreadyRefunded: false, completed: true, refundedAmount: 30, refundableAmount: 70 },
    });
    expect(await paymentsOf(inv.id)).toEqual([{ id: paid.json.paymentId, status: 'partially_refunded', refunded_amount: '30.0000' }]);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 100, amountRefunded: 30 });
    expect((await ledgerOf(paid.json.paymentId)).filter((e) => e.type === 'refund')).toEqual([{ type: 'refund', account: 'pending', amount: '-30.0000' }]);
    const rest = await payInvoice({ invoiceIdentifier: inv.identifier, paymentOptionId: 1, originalPaymentReference: reference });
    expect(rest.json.refund).toEqual({ amount: 70, alreadyRefunded: false, completed: true, refundedAmount: 100, refundableAmount: 0 });
    const again = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, originalPaymentReference: reference });
    expect(again.json).toMatchObject({ isSuccess: true, hostMessage: 'Already refunded in full', refund: { amount: 0, alreadyRefunded: true } });
    expect(await paymentsOf(inv.id)).toEqual([{ id: paid.json.paymentId, status: 'refunded', refunded_amount: '100.0000' }]);
  });

  it('an unknown reference answers 404, another invoice 400, more than is left 400; nothing moves', async () => {
    const inv = await newInvoice();
    const other = await newInvoice();
    const paid = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard() });
    const unknown = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, originalPaymentReference: 'PAY-NO-SUCH' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'resource_not_found', param: 'originalPaymentReference' });
    const otherMerchant = await payInvoice({ paymentOptionId: 1, originalPaymentReference: paid.json.referenceNumber }, t.merchantB.keys.test.secret);
    expect(otherMerchant.status).toBe(404);
    const wrongInvoice = await payInvoice({ invoiceId: other.id, paymentOptionId: 1, originalPaymentReference: paid.json.referenceNumber });
    expect(wrongInvoice.status).toBe(400);
    expect(wrongInvoice.json.error).toMatchObject({ code: 'validation_error', param: 'originalPaymentReference' });
    const tooMuch = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, originalPaymentReference: paid.json.referenceNumber, amount: 300.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect(await paymentsOf(inv.id)).toEqual([{ id: paid.json.paymentId, status: 'succeeded', refunded_amount: '0.0000' }]);
  });

  it('a bank transfer cannot be refunded through the API: 400 payment_not_refundable, method_not_supported (here and on the Checkout refund)', async () => {
    const inv = await newInvoice();
    const res = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4 });
    await t.call('POST', `/v1/test-helpers/payments/${res.json.paymentId}/receive`, { key: sk() });
    const refused = await payInvoice({ invoiceId: inv.id, paymentOptionId: 4, originalPaymentReference: res.json.referenceNumber });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'payment_not_refundable' });
    expect(refused.json.error.message).toContain('bank transfer');
    const invoiceRefund = await t.call('POST', `/v1/invoices/${inv.id}/refund`, { key: sk(), body: {} });
    expect(invoiceRefund.status).toBe(400);
    expect(invoiceRefund.json).toMatchObject({ errorCode: 'payment_not_refundable', data: { reason: 'method_not_supported', manualRefundRequired: true } });
    expect(await paymentsOf(inv.id)).toEqual([{ id: res.json.paymentId, status: 'succeeded', refunded_amount: '0.0000' }]);
  });
});
