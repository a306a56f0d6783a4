// Commerce funding sources: RegisterCard and its `isSuccess` rule, the list, verification, and paying with one.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { MESSAGES } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { newInvoice, optionOf, payInvoice } from '../fixtures/commerce-payments.js';
import { commerce, FUNDING, fundingSources, PAY, PAYMENT_RESPONSE, PAYMENTS, registerCard, YY } from '../fixtures/commerce-funds.js';

export const fundingSourceScenarios: Scenario[] = [
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
];
