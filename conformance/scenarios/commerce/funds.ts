// Commerce wallet accounts and balances (paying an invoice from one), transfers and their list, the
// transactions, and the transfers dashboard. Funding sources are in funding-sources.ts; a
// transfer's way through `Processing` to `Completed` or `Failed` is in transfers.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { scenario } from '../fixtures/scenario.js';
import { newSession, payByCard } from '../fixtures/sessions.js';
import { card, newInvoice, optionOf, payInvoice, VISA } from '../fixtures/commerce-payments.js';
import { otherSecretKey, secretKey } from '../fixtures/keys.js';
import {
  ACCOUNT,
  ACCOUNTS,
  commerce,
  DASHBOARDS,
  FUND,
  fundedAccount,
  OTHER_OPS,
  PAY,
  PAYMENTS,
  sendToBank,
  TRANSFER,
  TRANSFER_FIELDS,
  TRANSFERS,
  usdAccount,
} from '../fixtures/commerce-funds.js';

export const fundsScenarios: Scenario[] = [
  scenario(
    'commerce.accounts.pay-from-balance',
    'An invoice can be paid from a wallet account (`sourceAccountId`)',
    PAYMENTS,
    [...FUND, 'getAccountBalance', 'getCommerceInvoice', ...PAY],
    async (ctx) => {
      const account = await fundedAccount(ctx, 50);
      const balance = async () => (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json;
      const before = await balance();
      const invoice = await newInvoice(ctx); // 85.00
      const option = await optionOf(ctx, invoice.id, 'AccountBalance');
      expectError(
        await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: option, sourceAccountId: 2_000_000_000 }),
        404,
        'not_found',
        'resource_not_found',
        'sourceAccountId',
      );
      const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: option, sourceAccountId: account.id, amount: 25 });
      expectStatus(res, 200, 'pay 25.00 from the account');
      assert.deepEqual(
        [
          res.json.paymentStatusId,
          res.json.isSuccess,
          res.json.approvalAction,
          res.json.paymentMethod,
          res.json.amountPaid,
          res.json.amountDue,
          res.json.feePaid,
        ],
        ['Success', true, 'None', 'AccountBalance', 25, 60, 0],
        `no fee on a balance payment: ${JSON.stringify(res.json)}`,
      );
      const after = await balance();
      assert.equal(
        Math.round((before.availableAmount - after.availableAmount) * 100),
        2500,
        `exactly 25.00 left the available balance: ${JSON.stringify([before, after])}`,
      );
      assert.equal((await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}` })).json.status, 'PartiallyPaid');
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.accounts.pay-from-balance-short-fails',
    'A short account balance is a failed payment: 200, `isSuccess` false, `paymentStatusId` Failed, the reason in `hostMessage`; nothing moves',
    PAYMENTS,
    [...FUND, 'getAccountBalance', 'getCommerceInvoice', ...PAY],
    async (ctx) => {
      const account = await fundedAccount(ctx, 20);
      const before = (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json;
      // An invoice of more than is available (whatever else this merchant has earned), paid in full.
      const invoice = await newInvoice(ctx, { items: [{ name: 'Workshop seat', unitCost: Math.ceil(before.availableAmount) + 10, quantity: 1 }] });
      const option = await optionOf(ctx, invoice.id, 'AccountBalance');
      const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: option, sourceAccountId: account.id });
      expectStatus(res, 200, 'a payment the balance cannot cover still answers 200');
      assert.deepEqual([res.json.paymentStatusId, res.json.isSuccess, res.json.amountPaid], ['Failed', false, 0], JSON.stringify(res.json));
      assert.match(res.json.hostMessage ?? '', /available/, `hostMessage gives the reason: ${res.json.hostMessage}`);
      const after = (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json;
      assert.equal(after.availableAmount, before.availableAmount, 'nothing left the account');
      assert.equal((await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}` })).json.status, 'Pending');
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.accounts.pay-another-merchants-invoice',
    "Another merchant's wallet account (same mode) pays an invoice by `invoiceIdentifier`, without a fee; `originalPaymentReference` refunds it back to that account",
    PAYMENTS,
    [...FUND, 'getAccountBalance', ...PAY],
    async (ctx) => {
      const payee = await otherSecretKey(ctx);
      const account = await fundedAccount(ctx, 50);
      const balance = async () => (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json.availableAmount;
      const before = await balance();
      const invoice = await call(ctx, 'commerce', 'createCommerceInvoice', {
        method: 'POST',
        path: '/v1/invoice',
        apiKey: payee,
        body: { currencyCode: 'USD', description: 'Conformance invoice', items: [{ name: 'Seat', unitCost: 20, quantity: 1 }] },
      });
      expectStatus(invoice, 201, "the other merchant's invoice");
      const options = await call(ctx, 'commerce', 'listInvoicePaymentMethods', {
        method: 'GET',
        path: `/v1/invoice/${invoice.json.id}/PaymentMethods`,
        apiKey: payee,
      });
      const option = options.json.value.find((o: any) => o.paymentMethodId === 'AccountBalance' && o.isEnabled)?.id;
      assert.ok(option, `the payee offers an AccountBalance option: ${options.text.slice(0, 300)}`);
      const res = await payInvoice(ctx, { invoiceIdentifier: invoice.json.identifier, paymentOptionId: option, sourceAccountId: account.id });
      expectStatus(res, 200, "pay the other merchant's invoice from the account");
      assert.deepEqual([res.json.paymentStatusId, res.json.amountPaid, res.json.feePaid], ['Success', 20, 0], JSON.stringify(res.json));
      assert.equal(Math.round((before - (await balance())) * 100), 2000, 'exactly 20.00 left the payer account');
      const refund = await call(ctx, 'commerce', 'payInvoice', {
        method: 'POST',
        path: '/api/payment/payinvoice',
        apiKey: payee,
        body: { paymentOptionId: option, originalPaymentReference: res.json.referenceNumber, amount: 5 },
      });
      expectStatus(refund, 200, 'the payee refunds 5.00');
      assert.deepEqual([refund.json.isSuccess, refund.json.amountPaid, refund.json.refund?.amount], [true, 0, 5], JSON.stringify(refund.json));
      assert.equal(Math.round((before - (await balance())) * 100), 1500, 'the refund went back to the account that paid');
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.payments.refund-by-original-reference',
    '`originalPaymentReference` refunds the referenced payment (part of it) and never charges; a bank transfer answers `method_not_supported`',
    PAYMENTS,
    [...PAY, 'simulatePaymentReceived'],
    async (ctx) => {
      const invoice = await newInvoice(ctx); // 85.00
      const visa = await optionOf(ctx, invoice.id, 'CreditCard', 'Visa');
      const paid = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: visa, card: card(VISA), amount: 40 });
      expectStatus(paid, 200, 'pay 40.00 of the invoice');
      const res = await payInvoice(ctx, {
        invoiceId: invoice.id,
        paymentOptionId: visa,
        card: card(VISA),
        originalPaymentReference: paid.json.referenceNumber,
        amount: 15,
      });
      expectStatus(res, 200, 'refund 15.00 of the payment');
      assert.deepEqual(
        [res.json.referenceNumber, res.json.isSuccess, res.json.amountPaid, res.json.amountDue, res.json.refund?.amount, res.json.refund?.refundableAmount],
        [paid.json.referenceNumber, true, 0, 45, 15, 25],
        `a refund, not a second charge: ${JSON.stringify(res.json)}`,
      );
      const transfer = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'BankTransfer') });
      expectStatus(transfer, 200, 'pay the rest by bank transfer');
      const arrived = await call(ctx, 'checkout', 'simulatePaymentReceived', {
        method: 'POST',
        path: `/v1/test-helpers/payments/${transfer.json.paymentId}/receive`,
        key: secretKey(ctx),
      });
      expectStatus(arrived, 200, 'the transfer arrives');
      expectError(
        await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: visa, originalPaymentReference: transfer.json.referenceNumber }),
        400,
        'invalid_request',
        'payment_not_refundable',
      );
    },
  ),
  scenario(
    'commerce.accounts.list',
    '`GET /v1/account` answers `{value: [accounts]}` of the user: id, accountNumber, name, description, currencyCode, status',
    ACCOUNTS,
    ['listAccounts'],
    async (ctx) => {
      const account = await usdAccount(ctx);
      for (const field of ['id', 'accountNumber', 'name', 'description', 'currencyCode', 'status'])
        assert.ok(field in account, `${field} in ${JSON.stringify(account)}`);
    },
  ),
  scenario(
    'commerce.accounts.balance',
    '`GET /v1/account/{id}/balance` answers currentAmount, availableAmount and currencyCode, with available never above current',
    ACCOUNT,
    [...FUND, 'getAccountBalance'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 20);
      const before = (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json;
      assert.equal(before.currencyCode, 'USD');
      assert.ok(before.availableAmount <= before.currentAmount, JSON.stringify(before));
      // A payment not yet settled counts in current, not in available: 20 less the 2.9% + 0.30 fee.
      await payByCard(ctx, await newSession(ctx, { amount: 20, currency: 'USD' }));
      const after = (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json;
      assert.equal(Math.round((after.currentAmount - before.currentAmount) * 100), 1912);
      assert.equal(after.availableAmount, before.availableAmount);
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.transfers.list',
    '`GET /v1/GatewayTransferDto` answers `{value: [transfers]}` with id, referenceNumber, transferAction, sourceAccountId, destinationAccountNumber, amount, fee, currencyCode, status, feePayer, createdDateTime',
    TRANSFER,
    [...FUND, 'createTransfer', 'listGatewayTransfers'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      const made = await sendToBank(ctx, account.id, 1);
      expectStatus(made, 201, 'make a transfer');
      const list = await commerce(ctx, 'listGatewayTransfers', { method: 'GET', path: '/v1/GatewayTransferDto' });
      const item = list.json.value.find((x: any) => x.id === made.json.id);
      assert.ok(item, 'the new transfer is listed (newest first)');
      for (const field of TRANSFER_FIELDS) assert.ok(field in item, `${field} in ${JSON.stringify(item)}`);
    },
  ),
  scenario(
    'commerce.transfers.filter-transfer-action',
    '`$filter` by `transferAction` lists only transfers of that action',
    TRANSFERS,
    [...FUND, 'createTransfer', 'listGatewayTransfers'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      expectStatus(await sendToBank(ctx, account.id, 1, 'BankWithdrawal'), 201, 'a bank withdrawal');
      expectStatus(await sendToBank(ctx, account.id, 1, 'CBDCTransfer'), 201, 'a CBDC transfer');
      const res = await commerce(ctx, 'listGatewayTransfers', {
        method: 'GET',
        path: '/v1/GatewayTransferDto',
        query: { $filter: "transferAction eq 'BankWithdrawal'", $top: 100 },
      });
      assert.ok(res.json.value.length > 0, 'the withdrawal is listed');
      assert.ok(
        res.json.value.every((x: any) => x.transferAction === 'BankWithdrawal'),
        JSON.stringify(res.json.value.map((x: any) => x.transferAction)),
      );
    },
  ),
  scenario(
    'commerce.transfers.orderby-top-skip',
    'The transfer list takes `$orderby`, `$top` and `$skip`',
    TRANSFERS,
    [...FUND, 'createTransfer', 'listGatewayTransfers'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      for (const amount of [1, 2, 3]) expectStatus(await sendToBank(ctx, account.id, amount), 201, 'a transfer');
      const list = (query: Record<string, string | number | boolean>) =>
        commerce(ctx, 'listGatewayTransfers', { method: 'GET', path: '/v1/GatewayTransferDto', query });
      const all = (await list({ $orderby: 'id desc', $top: 3, $count: true })).json;
      assert.equal(all.value.length, 3);
      assert.ok(all['@odata.count'] >= 3);
      const second = (await list({ $orderby: 'id desc', $top: 1, $skip: 1 })).json.value;
      assert.deepEqual(
        second.map((x: any) => x.id),
        [all.value[1].id],
      );
      const ascending = (await list({ $orderby: 'id asc', $top: 2 })).json.value.map((x: any) => x.id);
      assert.ok(ascending[0] < ascending[1], `ascending ids: ${ascending}`);
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.dashboards.transfers',
    'The transfers dashboard answers summary {totalTransfers, totalSourceAmount, totalPayoutAmount, totalFees, averageAmount, completionRate}, typeBreakdown, statusBreakdown, timeSeries and feePayerBreakdown for startDate, endDate, currencyCode, institutionId and timeUnit',
    DASHBOARDS,
    ['getTransfersDashboard'],
    async (ctx) => {
      const today = new Date().toISOString().slice(0, 10);
      const res = await commerce(ctx, 'getTransfersDashboard', {
        method: 'GET',
        path: '/v1/FinancialDashboard/transfers',
        query: { endDate: today, currencyCode: 'USD', timeUnit: 'Week' },
      });
      expectStatus(res, 200, 'the dashboard');
      for (const field of ['totalTransfers', 'totalSourceAmount', 'totalPayoutAmount', 'totalFees', 'averageAmount', 'completionRate'])
        assert.equal(typeof res.json.summary[field], 'number', field);
      for (const list of ['typeBreakdown', 'statusBreakdown', 'timeSeries', 'feePayerBreakdown']) assert.ok(Array.isArray(res.json[list]), list);
      const counted = res.json.timeSeries.reduce((n: number, p: any) => n + p.count, 0);
      assert.equal(counted, res.json.summary.totalTransfers, 'the time series counts every transfer once');
      const empty = await commerce(ctx, 'getTransfersDashboard', {
        method: 'GET',
        path: '/v1/FinancialDashboard/transfers',
        query: { endDate: today, institutionId: 4 },
      });
      assert.equal(empty.json.summary.totalTransfers, 0);
    },
  ),
  scenario(
    'commerce.other.transfer-and-transactions',
    '`POST /v1/transfer` makes a transfer that `GET /v1/transaction` lists',
    OTHER_OPS,
    [...FUND, 'createTransfer', 'listTransactions'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      const made = await sendToBank(ctx, account.id, 2);
      expectStatus(made, 201, 'make a transfer');
      const res = await commerce(ctx, 'listTransactions', {
        method: 'GET',
        path: '/v1/transaction',
        query: { $filter: `referenceNumber eq '${made.json.referenceNumber}'` },
      });
      const bookings = res.json.value.map((x: any) => [x.type, x.amount, x.accountId]);
      assert.deepEqual(bookings, [
        ['Fee', -0.02, account.id],
        ['Transfer', -2, account.id],
      ]);
    },
  ),
];
