// Funds of the Commerce interface: funding sources (RegisterCard, verify, list, paying with one),
// wallet accounts and balances (paying an invoice from one), transfers and their list, the
// transactions, and the transfers dashboard.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, RequestSpec, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { MESSAGES, PAY_CARD } from '../fixtures/operations.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';
import { newSession, payByCard } from '../fixtures/sessions.js';
import { newInvoice, optionOf, payInvoice } from '../fixtures/commerce-payments.js';

const PAYMENTS = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources');
const PAYMENT_RESPONSE = source(COMMERCE_DOC, 'Resources and their fields', 'Payment response');
const FUNDING = source(COMMERCE_DOC, 'Resources and their fields', 'Funding source');
const ACCOUNT = source(COMMERCE_DOC, 'Resources and their fields', 'Account and balance');
const TRANSFER = source(COMMERCE_DOC, 'Resources and their fields', 'Transfer');
const DASHBOARDS = source(COMMERCE_DOC, 'Resources and their fields', 'Dashboards');
const ACCOUNTS = source(COMMERCE_DOC, 'Endpoints', 'Accounts');
const TRANSFERS = source(COMMERCE_DOC, 'Endpoints', 'Transfers and dashboards');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');

const BANK = 'DE89370400440532013000';
const FUND = [...PAY_CARD, 'settleTestPayment', 'listAccounts'];
const PAY = ['createCommerceInvoice', 'listInvoicePaymentMethods', 'payInvoice'];
const YY = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');

const commerce = (ctx: ConformanceContext, operationId: string, spec: Omit<RequestSpec, 'apiKey'>): Promise<HttpResult> =>
  call(ctx, 'commerce', operationId, { ...spec, apiKey: ctx.options.apiKey ?? secretKey(ctx) });
const registerCard = (ctx: ConformanceContext, cardNumber: string) =>
  commerce(ctx, 'registerCard', {
    method: 'POST',
    path: '/v1/payment/RegisterCard',
    body: { card: { cardNumber, expiryDate: `12/${YY}`, cvv: '123' }, name: `conf ${ctx.runId}`.slice(0, 100) },
  });
const fundingSources = async (ctx: ConformanceContext): Promise<any[]> =>
  (await commerce(ctx, 'listFundingSources', { method: 'GET', path: '/v1/FundingSource' })).json.value;

/** The merchant's USD wallet account. */
async function usdAccount(ctx: ConformanceContext): Promise<any> {
  const res = await commerce(ctx, 'listAccounts', { method: 'GET', path: '/v1/account' });
  expectStatus(res, 200, 'list the accounts');
  const account = res.json.value.find((a: any) => a.currencyCode === 'USD');
  assert.ok(account, `a USD account: ${res.text.slice(0, 300)}`);
  return account;
}

/** Settled money on the merchant's USD account: a card payment of `amount`, settled; answers the account. */
async function fundedAccount(ctx: ConformanceContext, amount = 50): Promise<any> {
  const paid = await payByCard(ctx, await newSession(ctx, { amount, currency: 'USD' }));
  const settled = await call(ctx, 'checkout', 'settleTestPayment', {
    method: 'POST',
    path: `/v1/test-helpers/payments/${paid.paymentResult.id}/settle`,
    key: secretKey(ctx),
  });
  expectStatus(settled, 200, 'settle the payment');
  return usdAccount(ctx);
}

const sendToBank = (ctx: ConformanceContext, accountId: number, amount: number, transferAction = 'BankTransfer') =>
  commerce(ctx, 'createTransfer', {
    method: 'POST',
    path: '/v1/transfer',
    body: {
      sourceAccountId: accountId,
      destinationAccountNumber: BANK,
      amount,
      currencyCode: 'USD',
      transferAction,
      description: `conf ${ctx.runId}`.slice(0, 255),
    },
  });

const TRANSFER_FIELDS = [
  'id',
  'referenceNumber',
  'transferAction',
  'sourceAccountId',
  'destinationAccountNumber',
  'amount',
  'fee',
  'currencyCode',
  'status',
  'feePayer',
  'createdDateTime',
];

export const fundsScenarios: Scenario[] = [
  scenario(
    'commerce.funding.register-card',
    '`POST /v1/payment/RegisterCard` answers message, status, fundingSourceId and paymentResponse {isSuccess, paymentStatusId}',
    PAYMENTS,
    ['registerCard'],
    async (ctx) => {
      const res = await registerCard(ctx, '4242424242424242');
      expectStatus(res, 200, 'register a card');
      assert.equal(typeof res.json.message, 'string');
      assert.equal(res.json.status, 'Registered');
      assert.ok(Number.isInteger(res.json.fundingSourceId), `fundingSourceId: ${res.text}`);
      assert.deepEqual(res.json.paymentResponse, { isSuccess: true, paymentStatusId: 'Success' });
    },
  ),
  scenario(
    'commerce.funding.register-card-is-success-rule',
    "RegisterCard's `paymentResponse.isSuccess` follows the rule: true exactly for `Success` or `CustomerAuthRequired`",
    PAYMENT_RESPONSE,
    ['registerCard'],
    async (ctx) => {
      const seen = new Set<string>();
      for (const card of ['4242424242424242', '4000000000003220', '4000000000009995']) {
        const { paymentResponse } = (await registerCard(ctx, card)).json;
        seen.add(paymentResponse.paymentStatusId);
        assert.equal(
          paymentResponse.isSuccess,
          paymentResponse.paymentStatusId === 'Success' || paymentResponse.paymentStatusId === 'CustomerAuthRequired',
          JSON.stringify(paymentResponse),
        );
      }
      assert.deepEqual([...seen].sort(), ['CustomerAuthRequired', 'Failed', 'Success']);
    },
  ),
  scenario(
    'commerce.funding.list',
    "`GET /v1/FundingSource` answers `{value: [...]}` of the user's funding sources: id, name, description, paymentOptionId, statusId, isVerified, isCardNotPresentAllowed, maskedAccountNumber, expiryDate",
    FUNDING,
    ['registerCard', 'listFundingSources'],
    async (ctx) => {
      const id = (await registerCard(ctx, '5555555555554444')).json.fundingSourceId;
      const item = (await fundingSources(ctx)).find((s) => s.id === id);
      assert.ok(item, `the new source ${id} is listed`);
      for (const field of [
        'id',
        'name',
        'description',
        'paymentOptionId',
        'statusId',
        'isVerified',
        'isCardNotPresentAllowed',
        'maskedAccountNumber',
        'expiryDate',
      ])
        assert.ok(field in item, `${field} in ${JSON.stringify(item)}`);
      assert.equal(item.maskedAccountNumber, '************4444');
      assert.equal(item.expiryDate, `12/${YY}`);
    },
  ),
  scenario(
    'commerce.funding.verify',
    '`POST /v1/fundingSource/{id}/verify` with `VerificationCode` verifies a funding source (isVerified becomes true)',
    PAYMENTS,
    ['registerCard', 'verifyFundingSource', 'listFundingSources', MESSAGES],
    async (ctx) => {
      const registered = (await registerCard(ctx, '4000000000003220')).json;
      assert.equal(registered.status, 'VerificationRequired');
      const id = registered.fundingSourceId;
      assert.equal((await fundingSources(ctx)).find((s) => s.id === id)?.isVerified, false);
      const outbox = await call(ctx, 'checkout', MESSAGES, { method: 'GET', path: '/v1/test-helpers/messages', query: { kind: 'otp' }, key: secretKey(ctx) });
      const body: string = outbox.json.data.find((m: any) => String(m.body).includes(`funding source ${id} `))?.body ?? '';
      const code = /is (\d{6})\./.exec(body)?.[1];
      assert.ok(code, `a code for funding source ${id} in the outbox`);
      const verified = await commerce(ctx, 'verifyFundingSource', { method: 'POST', path: `/v1/fundingSource/${id}/verify`, body: { VerificationCode: code } });
      expectStatus(verified, 200, 'verify with the code');
      assert.deepEqual([verified.json.isVerified, verified.json.statusId], [true, 'Active']);
      assert.equal((await fundingSources(ctx)).find((s) => s.id === id)?.isVerified, true);
    },
  ),
  scenario(
    'commerce.funding.pay-with-source',
    'A registered funding source pays an invoice by `fundingSourceId`',
    PAYMENTS,
    ['registerCard', 'getCommerceInvoice', ...PAY],
    async (ctx) => {
      const registered = (await registerCard(ctx, '4242424242424242')).json;
      assert.equal(registered.status, 'Registered', `a Visa card that needs no verification: ${JSON.stringify(registered)}`);
      const invoice = await newInvoice(ctx); // 85.00
      const res = await payInvoice(ctx, {
        invoiceId: invoice.id,
        paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', 'Visa'),
        fundingSourceId: registered.fundingSourceId,
      });
      expectStatus(res, 200, 'pay with the funding source');
      assert.deepEqual(
        [res.json.paymentStatusId, res.json.isSuccess, res.json.approvalAction, res.json.amountPaid, res.json.amountDue],
        ['Success', true, 'None', 85, 0],
        JSON.stringify(res.json),
      );
      const after = await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}` });
      assert.equal(after.json.status, 'Paid');
    },
  ),
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
        [res.json.paymentStatusId, res.json.isSuccess, res.json.approvalAction, res.json.paymentMethod, res.json.amountPaid, res.json.amountDue],
        ['Success', true, 'None', 'AccountBalance', 25, 60],
        JSON.stringify(res.json),
      );
      const after = await balance();
      assert.equal(
        Math.round((before.availableAmount - after.availableAmount) * 100),
        2500,
        `exactly 25.00 left the available balance: ${JSON.stringify([before, after])}`,
      );
      assert.equal((await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}` })).json.status, 'PartiallyPaid');
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
