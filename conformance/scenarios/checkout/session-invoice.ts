// Creation rule 6: a checkout session paying an existing invoice (by id or pay-link reference), sub-rules
// 6a to 6c: what may be sent with the invoice, what is taken from it, and whose invoice it may be.
// Sub-rules 6d to 6g are in session-invoice-payable.ts.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { expectError, expectStatus } from '../fixtures/http.js';
import { liveSecretKey, otherSecretKey, secretKey } from '../fixtures/keys.js';
import { RETRIEVE, SESSION } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { RULE_6 } from '../fixtures/sections.js';
import { postSession, retrieveSession } from '../fixtures/sessions.js';
import { newInvoice } from '../fixtures/invoices.js';

/** A session (with `key`) on the invoice, by id and by reference, answers 404 `invoice_not_found`. */
async function expectInvoiceNotFound(ctx: ConformanceContext, invoice: { id: number; reference: string }, key = secretKey(ctx)): Promise<void> {
  for (const pick of [{ invoiceId: invoice.id }, { invoiceReference: invoice.reference }])
    expectError(await postSession(ctx, { amount: undefined, currency: undefined, ...pick }, key), 404, 'not_found', 'invoice_not_found');
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
      await expectInvoiceNotFound(ctx, await newInvoice(ctx, 'USD', await otherSecretKey(ctx)));
    },
  },
  scenario(
    'checkout.sessions.rule-6c-other-mode-invoice',
    'An invoice of the other mode answers 404 `invoice_not_found`',
    RULE_6,
    ['createInvoice', SESSION],
    async (ctx) => {
      const live = liveSecretKey(ctx);
      // Nothing is charged: a live invoice (voided at the end of the run) and refused sessions only.
      const liveInvoice = await newInvoice(ctx, 'USD', live);
      ctx.onCleanup(() => ctx.request('checkout', 'voidInvoice', { method: 'POST', path: `/v1/invoices/${liveInvoice.id}/void`, key: live }));
      await expectInvoiceNotFound(ctx, liveInvoice);
      await expectInvoiceNotFound(ctx, await newInvoice(ctx), live);
    },
  ),
];
