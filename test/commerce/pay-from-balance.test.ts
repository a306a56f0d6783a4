// Paying from a wallet account's balance (`sourceAccountId` with the `AccountBalance` option) over
// HTTP: the amount leaves the available balance through the ledger in the transaction that pays the
// invoice, without a fee; a short balance is a Failed payment (200, isSuccess false) and nothing
// moves; another merchant's account or another currency is refused. Another merchant of the same
// mode pays an invoice by its identifier from its own account; refunds go back to the account that paid.
// The race of three payments on one account is in pay-from-balance.pg.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { up as addAccountBalanceOption } from '../../server/db/migrations/2026_11_26_0030_account_balance_payments.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { BALANCE_OPTION, balancePayments, fundsKit } from '../support/funds.js';
import { connectHub, stopHubClients } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const kit = fundsKit(t);
const { newInvoice, fundedMerchant, pay, balance, invoiceOf } = balancePayments(t);
afterEach(stopHubClients);

const paymentsOf = (invoiceId: number) =>
  t.database.db.selectFrom('payments').select(['id', 'status', 'method_type']).where('invoice_id', '=', invoiceId).execute();
const eventTypes = async (m: MerchantCredentials) =>
  (await t.database.db.selectFrom('events').select('type').where('merchant_id', '=', m.merchantId).orderBy('seq').execute()).map((e) => e.type);
const ledgerOf = (paymentId: number) =>
  t.database.db.selectFrom('ledger_entries').select(['type', 'account', 'amount']).where('payment_id', '=', paymentId).orderBy('id').execute();

describe('paying an invoice from an account balance', () => {
  it('pays the whole invoice at once: Success, None, the invoice Paid, exactly the amount out of available, the webhooks and InvoiceUpdated', async () => {
    const { m, account } = await fundedMerchant('Balance payer', 200); // 193.90 available
    expect(await balance(m, account.id)).toEqual({ currentAmount: 193.9, availableAmount: 193.9, currencyCode: 'USD' });
    const inv = await newInvoice(m, 100);
    const hub = await connectHub(t.url, { key: m.keys.test.secret });
    const before = await eventTypes(m);
    const res = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      invoiceIdentifier: inv.identifier,
      amountPaid: 100,
      amountDue: 0,
      feePaid: 0,
      currency: 'USD',
      paymentStatusId: 'Success',
      paymentMethod: 'AccountBalance',
      isSuccess: true,
      approvalAction: 'None',
      approvalDataOrUrl: null,
      is3DSecureAuth: false,
      authorizationCode: null,
      hostMessage: 'Approved',
    });
    expect(await invoiceOf(m, inv.id)).toMatchObject({ status: 'Paid', totalPaid: 100 });
    // Available: exactly 100 less. The payment itself is pending money of the invoice, without a fee.
    expect(await balance(m, account.id)).toEqual({ currentAmount: 193.9, availableAmount: 93.9, currencyCode: 'USD' });
    expect(await ledgerOf(res.json.paymentId)).toEqual([
      { type: 'account_payment', account: 'available', amount: '-100.0000' },
      { type: 'account_payment', account: 'payer', amount: '100.0000' },
      { type: 'payment', account: 'payer', amount: '-100.0000' },
      { type: 'payment', account: 'pending', amount: '100.0000' },
    ]);
    // As for a card: the invoice is paid first, then the payment succeeds (no checkout.session.* for a Commerce payment).
    expect((await eventTypes(m)).slice(before.length)).toEqual(['invoice.paid', 'payment.succeeded']);
    expect(await hub.next(inv.id)).toEqual({ invoiceId: inv.id, status: 'Paid' });
    const event = (await t.call('GET', '/v1/events?type=payment.succeeded&limit=1', { key: m.keys.test.secret })).json.data[0];
    expect(event.data.object).toMatchObject({ id: res.json.paymentId, paymentMethod: { type: 'account_balance', brand: null, last4: null } });
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: m.keys.test.secret });
    expect(shown.json).toMatchObject({ status: 'Success', paymentOptionId: BALANCE_OPTION, amount: 100, invoiceId: inv.id });
    const tx = await t.call('GET', `/v1/transaction?$filter=${encodeURIComponent(`referenceNumber eq '${res.json.referenceNumber}'`)}&$orderby=id`, {
      apiKey: m.keys.test.secret,
    });
    expect(tx.json.value.map((x: any) => [x.type, x.amount, x.description])).toEqual([
      ['Payment', -100, 'Paid from the account'],
      ['Payment', 100, 'Payment (pending)'],
    ]);
  });

  it('a part payment makes the invoice PartiallyPaid, the rest makes it Paid; available falls by each amount', async () => {
    const { m, account } = await fundedMerchant('Parts', 200);
    const inv = await newInvoice(m, 100);
    const first = await pay(m, { invoiceIdentifier: inv.identifier, sourceAccountId: account.id, amount: 40.5 });
    expect(first.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 40.5, amountDue: 59.5 });
    expect(await invoiceOf(m, inv.id)).toMatchObject({ status: 'PartiallyPaid', totalPaid: 40.5 });
    expect((await balance(m, account.id)).availableAmount).toBe(153.4);
    const rest = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id });
    expect(rest.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 59.5, amountDue: 0 });
    expect(await invoiceOf(m, inv.id)).toMatchObject({ status: 'Paid', totalPaid: 100 });
    expect((await balance(m, account.id)).availableAmount).toBe(93.9);
  });

  it('a short balance is a Failed payment: 200, isSuccess false, the reason in hostMessage; nothing moves; exactly what is available pays', async () => {
    const { m, account } = await fundedMerchant('Short', 20); // 19.12 available
    const inv = await newInvoice(m, 100);
    const before = { balance: await balance(m, account.id), events: await eventTypes(m) };
    const res = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 19.13 });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      paymentStatusId: 'Failed',
      isSuccess: false,
      paymentMethod: 'AccountBalance',
      amountPaid: 0,
      amountDue: 100,
      feePaid: 0,
      approvalAction: 'None',
      hostMessage: `Account ${account.id} has 19.12 USD available; the payment needs 19.13 USD.`,
    });
    expect(await balance(m, account.id)).toEqual(before.balance);
    expect(await invoiceOf(m, inv.id)).toMatchObject({ status: 'Pending', totalPaid: 0 });
    expect((await eventTypes(m)).slice(before.events.length)).toEqual(['payment.failed', 'invoice.payment_failed']);
    const shown = await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: m.keys.test.secret });
    expect(shown.json).toMatchObject({ status: 'Failed', paymentMethod: 'AccountBalance', hostMessage: res.json.hostMessage });
    expect(await ledgerOf(res.json.paymentId)).toEqual([]);
    const all = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 19.12 });
    expect(all.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 19.12, amountDue: 80.88 });
    expect((await balance(m, account.id)).availableAmount).toBe(0);
    expect((await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 1 })).json).toMatchObject({ isSuccess: false, paymentStatusId: 'Failed' });
  });

  it("another merchant's account, the other mode's or none answers 404 naming sourceAccountId; nothing moves", async () => {
    const { m, account } = await fundedMerchant('Owner', 50);
    const other = await t.newMerchant('Not the owner');
    const inv = await newInvoice(other, 10);
    const liveAccount = (await t.call('GET', '/v1/account', { apiKey: m.keys.live.secret })).json.value[0];
    for (const id of [account.id, liveAccount.id, 2_000_000_000]) {
      const res = await pay(other, { invoiceId: inv.id, sourceAccountId: id });
      expect(res.status, `account ${id}`).toBe(404);
      expect(res.json.error).toMatchObject({ code: 'resource_not_found', param: 'sourceAccountId' });
    }
    const ownLive = await pay(m, { invoiceId: (await newInvoice(m, 10)).id, sourceAccountId: liveAccount.id });
    expect(ownLive.status).toBe(404);
    expect(await balance(m, account.id)).toEqual({ currentAmount: 48.25, availableAmount: 48.25, currencyCode: 'USD' });
    expect(await invoiceOf(other, inv.id)).toMatchObject({ status: 'Pending' });
  });

  it('an account in another currency than the invoice answers 400 validation_error naming sourceAccountId; its own currency pays', async () => {
    const { m, account } = await fundedMerchant('Currencies', 50);
    await kit.settle(m, await kit.paid(m, 30, 'EUR')); // 28.83 EUR available
    const euros = await kit.account(m, 'EUR');
    const inv = await newInvoice(m, 10, 'EUR');
    const wrong = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toMatchObject({
      code: 'validation_error',
      param: 'sourceAccountId',
      message: `Account ${account.id} holds USD; the payment is in EUR.`,
    });
    expect(await paymentsOf(inv.id)).toEqual([]);
    const right = await pay(m, { invoiceId: inv.id, sourceAccountId: euros.id });
    expect(right.json).toMatchObject({ paymentStatusId: 'Success', currency: 'EUR', amountPaid: 10 });
    expect(await balance(m, euros.id)).toMatchObject({ availableAmount: 18.83, currencyCode: 'EUR' });
    expect((await balance(m, account.id)).availableAmount).toBe(48.25);
  });

  it('a retry with the same Idempotency-Key answers the first payment again and debits once', async () => {
    const { m, account } = await fundedMerchant('Retry', 100); // 96.80
    const inv = await newInvoice(m, 50);
    const body = { invoiceId: inv.id, sourceAccountId: account.id, amount: 20 };
    const first = await pay(m, body, { 'idempotency-key': `balance-${inv.id}` });
    const again = await pay(m, body, { 'idempotency-key': `balance-${inv.id}` });
    expect(first.status, first.text).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((await paymentsOf(inv.id)).map((p) => [p.status, p.method_type])).toEqual([['succeeded', 'account_balance']]);
    expect((await balance(m, account.id)).availableAmount).toBe(76.8);
  });

  it('POST /v1/payment pays from the account too (its one-item invoice paid)', async () => {
    const { m, account } = await fundedMerchant('Direct', 100);
    const res = await t.call('POST', '/v1/payment', {
      apiKey: m.keys.test.secret,
      body: { amount: 25, currency: 'USD', paymentMethod: 'AccountBalance', paymentOptionId: BALANCE_OPTION, sourceAccountId: account.id },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ status: 'Success', amount: 25, paymentOptionId: BALANCE_OPTION, feePaid: 0 });
    expect(await invoiceOf(m, res.json.invoiceId)).toMatchObject({ status: 'Paid', totalPaid: 25 });
    expect((await balance(m, account.id)).availableAmount).toBe(71.8);
    const short = await t.call('POST', '/v1/payment', {
      apiKey: m.keys.test.secret,
      body: { amount: 72, currency: 'USD', paymentOptionId: BALANCE_OPTION, sourceAccountId: account.id },
    });
    expect(short.status, short.text).toBe(201);
    expect(short.json).toMatchObject({ status: 'Failed', hostMessage: `Account ${account.id} has 71.80 USD available; the payment needs 72.00 USD.` });
    expect((await balance(m, account.id)).availableAmount).toBe(71.8);
  });
});

const refund = (m: MerchantCredentials, body: Record<string, unknown>) =>
  t.call('POST', '/api/payment/payinvoice', { apiKey: m.keys.test.secret, body: { paymentOptionId: BALANCE_OPTION, ...body } });
const transactionsOf = async (m: MerchantCredentials, reference: string) =>
  (
    await t.call('GET', `/v1/transaction?$filter=${encodeURIComponent(`referenceNumber eq '${reference}'`)}&$orderby=id`, { apiKey: m.keys.test.secret })
  ).json.value.map((x: any) => [x.type, x.amount, x.description]);

describe("another merchant's wallet account pays by invoiceIdentifier, and refunds go back to it", () => {
  it("the payer (its key, its account) pays the payee's invoice without a fee; originalPaymentReference refunds part, then the rest, to the payer's account", async () => {
    const { m: payer, account } = await fundedMerchant('Payer', 200); // 193.90 available
    const payee = await t.newMerchant('Payee');
    const inv = await newInvoice(payee, 100);
    const byId = await pay(payer, { invoiceId: inv.id, sourceAccountId: account.id });
    expect(byId.status).toBe(404); // an invoiceId is only ever the caller's own
    const live = await t.call('POST', '/api/payment/payinvoice', {
      apiKey: payer.keys.live.secret,
      body: { paymentOptionId: BALANCE_OPTION, invoiceIdentifier: inv.identifier, sourceAccountId: account.id },
    });
    expect(live.json.error).toMatchObject({ code: 'invoice_not_found' }); // never across modes
    const res = await pay(payer, { invoiceIdentifier: inv.identifier, sourceAccountId: account.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ paymentStatusId: 'Success', isSuccess: true, amountPaid: 100, amountDue: 0, feePaid: 0, paymentMethod: 'AccountBalance' });
    expect(await invoiceOf(payee, inv.id)).toMatchObject({ status: 'Paid', totalPaid: 100 });
    const payeeAccount = await kit.account(payee);
    expect(await balance(payer, account.id)).toEqual({ currentAmount: 93.9, availableAmount: 93.9, currencyCode: 'USD' });
    expect(await balance(payee, payeeAccount.id)).toEqual({ currentAmount: 100, availableAmount: 0, currencyCode: 'USD' });
    expect(await transactionsOf(payer, res.json.referenceNumber)).toEqual([['Payment', -100, 'Paid from the account']]);
    expect((await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: payee.keys.test.secret })).json).toMatchObject({
      status: 'Success',
      feePaid: 0,
    });
    expect((await t.call('GET', `/v1/payment/${res.json.paymentId}`, { apiKey: payer.keys.test.secret })).status).toBe(404);

    const part = await refund(payee, { originalPaymentReference: res.json.referenceNumber, amount: 40 });
    expect(part.status, part.text).toBe(200);
    expect(part.json).toMatchObject({
      referenceNumber: res.json.referenceNumber,
      paymentStatusId: 'Success',
      isSuccess: true,
      amountPaid: 0,
      amountDue: 0, // a refund does not make the invoice due again
      hostMessage: 'Refunded 40.00 USD',
      refund: { amount: 40, alreadyRefunded: false, completed: true, refundedAmount: 40, refundableAmount: 60 },
    });
    expect((await balance(payer, account.id)).availableAmount).toBe(133.9);
    expect(await balance(payee, payeeAccount.id)).toEqual({ currentAmount: 60, availableAmount: 0, currencyCode: 'USD' });
    expect(await transactionsOf(payer, res.json.referenceNumber)).toEqual([
      ['Payment', -100, 'Paid from the account'],
      ['Refund', 40, 'Refund to the account'],
    ]);
    const rest = await refund(payee, { invoiceIdentifier: inv.identifier, originalPaymentReference: res.json.referenceNumber });
    expect(rest.json.refund).toEqual({ amount: 60, alreadyRefunded: false, completed: true, refundedAmount: 100, refundableAmount: 0 });
    expect((await balance(payer, account.id)).availableAmount).toBe(193.9);
    expect(await balance(payee, payeeAccount.id)).toEqual({ currentAmount: 0, availableAmount: 0, currencyCode: 'USD' });
    const again = await refund(payee, { originalPaymentReference: res.json.referenceNumber });
    expect(again.json.refund).toMatchObject({ amount: 0, alreadyRefunded: true });
    expect((await balance(payer, account.id)).availableAmount).toBe(193.9);
    // The payer cannot refund the payee's payment.
    expect((await refund(payer, { originalPaymentReference: res.json.referenceNumber })).status).toBe(404);
  });
});

describe('refundable says what the refund would do', () => {
  it('a settled payment is refundable until the available balance is short of it; then refundable false (settled), and the refund is refused', async () => {
    const m = await t.newMerchant('Spent');
    const paymentId = await kit.paid(m, 100);
    await kit.settle(m, paymentId);
    await kit.funded(m, 50); // 96.80 + 48.25 = 145.05 available: the refund of 100 fits
    const { session_id: sessionId } = await t.database.db.selectFrom('payments').select('session_id').where('id', '=', paymentId).executeTakeFirstOrThrow();
    const refundState = async () => (await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: m.keys.test.secret })).json.refund;
    expect(await refundState()).toMatchObject({ refundable: true, reason: 'refundable' });
    const account = await kit.account(m);
    const spent = await pay(m, { invoiceId: (await newInvoice(m, 90)).id, sourceAccountId: account.id }); // 55.05 left available
    expect(spent.json.paymentStatusId).toBe('Success');
    expect(await refundState()).toMatchObject({ refundable: false, reason: 'settled', manualRefundRequired: true });
    const refused = await t.call('POST', `/v1/checkout-sessions/${sessionId}/refund`, { key: m.keys.test.secret, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ errorCode: 'refund_failed', data: { refundable: false, reason: 'settled' } });
  });
});

describe('the AccountBalance option of merchants made before it (migration 0030)', () => {
  it('is added with the next free id where a merchant has none, and left alone where it has one', async () => {
    const older = await t.newMerchant('Older');
    const options = (id: number) => t.database.db.selectFrom('merchants').select('payment_options').where('id', '=', id).executeTakeFirstOrThrow();
    const before = (await options(older.merchantId)).payment_options
      .filter((o) => o.method !== 'AccountBalance')
      .map((o) => (o.id === 4 ? { ...o, id: 7 } : o));
    await t.database.db
      .updateTable('merchants')
      .set({ payment_options: JSON.stringify(before) })
      .where('id', '=', older.merchantId)
      .execute();
    const untouched = (await options(t.merchantA.merchantId)).payment_options;
    await addAccountBalanceOption(t.database.db);
    expect((await options(older.merchantId)).payment_options).toEqual([
      ...before,
      { id: 8, code: 'account_balance', name: 'Account balance', method: 'AccountBalance', canHold: false, holdDays: null, enabled: true },
    ]);
    expect((await options(t.merchantA.merchantId)).payment_options).toEqual(untouched);
  });
});
