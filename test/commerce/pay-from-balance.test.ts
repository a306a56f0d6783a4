// Paying from a wallet account's balance (`sourceAccountId` with the `AccountBalance` option) over
// HTTP: the amount leaves the available balance through the ledger in the transaction that pays the
// invoice; a short balance, another merchant's account or another currency is refused and nothing moves.
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
      feePaid: 3.2,
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
    // Available: exactly 100 less. The payment itself is pending money of the invoice, less its fee.
    expect(await balance(m, account.id)).toEqual({ currentAmount: 190.7, availableAmount: 93.9, currencyCode: 'USD' });
    expect(await ledgerOf(res.json.paymentId)).toEqual([
      { type: 'account_payment', account: 'available', amount: '-100.0000' },
      { type: 'account_payment', account: 'payer', amount: '100.0000' },
      { type: 'payment', account: 'payer', amount: '-100.0000' },
      { type: 'payment', account: 'pending', amount: '100.0000' },
      { type: 'fee', account: 'pending', amount: '-3.2000' },
      { type: 'fee', account: 'fees', amount: '3.2000' },
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
      ['Fee', -3.2, 'Fee (pending)'],
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

  it('a short balance is refused with 409 naming sourceAccountId, and nothing moves; exactly what is available pays', async () => {
    const { m, account } = await fundedMerchant('Short', 20); // 19.12 available
    const inv = await newInvoice(m, 100);
    const before = { balance: await balance(m, account.id), events: await eventTypes(m) };
    const res = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 19.13 });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({
      type: 'conflict',
      code: 'invalid_state',
      param: 'sourceAccountId',
      message: `Account ${account.id} has 19.12 USD available; the payment needs 19.13 USD.`,
    });
    expect(await balance(m, account.id)).toEqual(before.balance);
    expect(await invoiceOf(m, inv.id)).toMatchObject({ status: 'Pending', totalPaid: 0 });
    expect(await paymentsOf(inv.id)).toEqual([]);
    expect(await eventTypes(m)).toEqual(before.events);
    const all = await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 19.12 });
    expect(all.json).toMatchObject({ paymentStatusId: 'Success', amountPaid: 19.12, amountDue: 80.88 });
    expect((await balance(m, account.id)).availableAmount).toBe(0);
    expect((await pay(m, { invoiceId: inv.id, sourceAccountId: account.id, amount: 1 })).status).toBe(409);
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
    expect(res.json).toMatchObject({ status: 'Success', amount: 25, paymentOptionId: BALANCE_OPTION });
    expect(await invoiceOf(m, res.json.invoiceId)).toMatchObject({ status: 'Paid', totalPaid: 25 });
    expect((await balance(m, account.id)).availableAmount).toBe(71.8);
    const short = await t.call('POST', '/v1/payment', {
      apiKey: m.keys.test.secret,
      body: { amount: 72, currency: 'USD', paymentOptionId: BALANCE_OPTION, sourceAccountId: account.id },
    });
    expect(short.status).toBe(409);
    expect(short.json.error).toMatchObject({ code: 'invalid_state', param: 'sourceAccountId' });
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
