// Creation rule 6: a checkout session paying an existing invoice (by id or pay-link reference),
// each sub-rule.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { CANCEL, PAY_CARD, RETRIEVE, SESSION } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { RULE_6 } from '../fixtures/sections.js';
import { cancelSession, newSession, payByCard, postSession, retrieveSession } from '../fixtures/sessions.js';

/** An invoice of the merchant behind `key` (25.00 in `currency` before `extra`), addressed to payer details. */
async function newInvoice(ctx: ConformanceContext, currency = 'USD', key = secretKey(ctx), extra: Record<string, unknown> = {}): Promise<any> {
  const res = await call(ctx, 'checkout', 'createInvoice', {
    method: 'POST',
    path: '/v1/invoices',
    key,
    body: {
      customer: { email: emailFor(ctx, 'invoice') },
      currency,
      lineItems: [{ name: `Conformance ${tag(ctx)}`, quantity: 2, unitAmount: 12.5 }],
      metadata: { conformanceRun: ctx.runId },
      ...extra,
    },
  });
  expectStatus(res, 201, 'create an invoice');
  return res.json;
}

export const invoicePayment: Scenario[] = [
  // Rule 6: paying an existing invoice, each sub-rule.
  {
    id: 'checkout.sessions.rule-6a-subscription-refused',
    title: 'Paying an invoice is only possible with `paymentType` `oneTime`; a subscription session with `invoiceId` is refused with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, paymentType: 'subscription' }),
        400,
        'invalid_request',
        'validation_error',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6a-both-invoice-fields',
    title: 'Sending both `invoiceId` and `invoiceReference` fails with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, invoiceReference: invoice.reference }),
        400,
        'invalid_request',
        'validation_error',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6a-line-items-with-invoice',
    title: 'Sending `lineItems` with `invoiceId` or `invoiceReference` fails with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const lineItems = [{ name: 'Extra', quantity: 1, unitAmount: 25 }];
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, lineItems }),
        400,
        'invalid_request',
        'validation_error',
        'lineItems',
      );
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference, lineItems }),
        400,
        'invalid_request',
        'validation_error',
        'lineItems',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6b-amount-currency-from-invoice',
    title: "Amount, currency and payment options come from the invoice: the session amount is the invoice's total due",
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'EUR');
      const res = await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      expectStatus(res, 201, 'create a session on an invoice');
      assert.equal(res.json.amount, invoice.amountDue, "the session charges the invoice's total due");
      assert.equal(res.json.currency, 'EUR', "the session takes the invoice's currency");
    },
  },
  {
    id: 'checkout.sessions.rule-6b-by-reference',
    title: '`invoiceReference` (the pay-link reference code, not the display invoice number) names the invoice to pay',
    source: RULE_6,
    requires: ['createInvoice', SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference });
      expectStatus(res, 201, 'create a session by invoice reference');
      assert.equal((await retrieveSession(ctx, res.json.id)).invoiceId, invoice.id, 'the session pays the invoice of that reference');
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.invoiceNumber }),
        404,
        'not_found',
        'invoice_not_found',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6b-amount-currency-must-match',
    title: 'An `amount` or `currency` sent with an invoice must match it; a different one is refused',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(
        await postSession(ctx, { amount: invoice.amountDue + 1, currency: undefined, invoiceId: invoice.id }),
        400,
        'invalid_request',
        'validation_error',
        'amount',
      );
      expectError(
        await postSession(ctx, { amount: undefined, currency: 'JPY', invoiceId: invoice.id }),
        400,
        'invalid_request',
        'validation_error',
        'currency',
      );
      expectStatus(
        await postSession(ctx, { amount: invoice.amountDue, currency: invoice.currency, invoiceId: invoice.id }),
        201,
        'matching amount and currency',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6b-payment-option-group-must-match',
    title: "A `paymentOptionGroupId` sent with an invoice must match the invoice's",
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      // Invoices created through this interface have no payment option group.
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, paymentOptionGroupId: 2147483000 }),
        400,
        'invalid_request',
        'validation_error',
        'paymentOptionGroupId',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-6c-other-merchant-invoice',
    title: "Another merchant's invoice answers 404 `invoice_not_found`",
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const theirs = await newInvoice(ctx, 'USD', otherSecretKey(ctx));
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: theirs.id }), 404, 'not_found', 'invoice_not_found');
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: theirs.reference }),
        404,
        'not_found',
        'invoice_not_found',
      );
    },
  },
  pending(
    'checkout.sessions.rule-6c-other-mode-invoice',
    'An invoice of the other mode answers 404 `invoice_not_found` (needs a live key, which the suite does not take)',
    RULE_6,
    ['createInvoice', SESSION],
  ),
  {
    id: 'checkout.sessions.rule-6d-paid-not-payable',
    title: 'A paid invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', ...PAY_CARD],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      await payByCard(ctx, session);
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  {
    id: 'checkout.sessions.rule-6d-cancelled-not-payable',
    title: 'A cancelled (voided) invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', 'voidInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectStatus(
        await call(ctx, 'checkout', 'voidInvoice', { method: 'POST', path: `/v1/invoices/${invoice.id}/void`, key: secretKey(ctx) }),
        200,
        'void the invoice',
      );
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  pending(
    'checkout.sessions.rule-6d-rejected-not-payable',
    'A rejected invoice fails with `invoice_not_payable` (no operation to reject an invoice is known yet)',
    RULE_6,
    ['createInvoice', SESSION],
  ),
  clocked('checkout.sessions.rule-6d-expired-not-payable', 'An expired invoice fails with `invoice_not_payable`', RULE_6, ['createCommerceInvoice', SESSION]),
  pending('checkout.sessions.rule-6d-draft-not-payable', 'A draft invoice fails with `invoice_not_payable`', RULE_6, ['createCommerceInvoice', SESSION]),
  {
    id: 'checkout.sessions.rule-6d-zero-balance-not-payable',
    title: 'A zero-balance invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'USD', secretKey(ctx), { discount: 25 });
      assert.equal(invoice.amountDue, 0, 'a discount of the whole invoice leaves nothing due');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  {
    id: 'checkout.sessions.rule-6e-open-session-returned',
    title: 'While a session on the invoice is open, creating another returns that same session, with its expiry',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const first = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      const again = await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference });
      expectStatus(again, 200, 'a second create on the same invoice');
      assert.equal(again.json.id, first.id, 'the same session is returned');
      assert.equal(again.json.expiresAt, first.expiresAt, 'with its expiry');
      assert.equal(again.json.clientSecret, first.clientSecret, 'and its client secret');
    },
  },
  clocked(
    'checkout.sessions.rule-6f-invoice-unchanged-on-expiry',
    'When the session paying an invoice expires, the invoice is left as it was (still payable)',
    RULE_6,
    ['createInvoice', SESSION, 'retrieveInvoice'],
    {
      async run(ctx) {
        const invoice = await newInvoice(ctx);
        const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
        await advanceClock(ctx, secondsUntil(session.expiresAt, session.createdAt) + 1);
        assert.equal((await retrieveSession(ctx, session.id)).status, 'expired', 'the session expired');
        const after = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoice.id}`, key: secretKey(ctx) });
        expectStatus(after, 200, 'retrieve the invoice');
        assert.equal(after.json.status, invoice.status, 'the invoice keeps its status');
        assert.equal(after.json.amountDue, invoice.amountDue, 'and is still due');
        const next = await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
        expectStatus(next, 201, 'a new session can pay the invoice');
        assert.notEqual(next.json.id, session.id, 'a new session, not the expired one');
      },
    },
  ),
  {
    id: 'checkout.sessions.rule-6f-invoice-unchanged-on-cancel',
    title: 'When the session paying an invoice is cancelled, the invoice is left as it was (not cancelled)',
    source: RULE_6,
    requires: ['createInvoice', SESSION, CANCEL, 'retrieveInvoice'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      expectStatus(await cancelSession(ctx, session.id), 204, 'cancel the session');
      const after = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoice.id}`, key: secretKey(ctx) });
      expectStatus(after, 200, 'retrieve the invoice');
      assert.equal(after.json.status, invoice.status, 'the invoice keeps its status');
      assert.equal(after.json.amountDue, invoice.amountDue, 'and is still due');
    },
  },
  pending(
    'checkout.sessions.rule-6g-completed-carries-invoice',
    '`checkout.session.completed` of a session paying an invoice carries `invoiceId` and `invoiceReference`',
    RULE_6,
    ['createInvoice', ...PAY_CARD, 'createWebhookConfiguration', 'listWebhookDeliveries'],
  ),
];
