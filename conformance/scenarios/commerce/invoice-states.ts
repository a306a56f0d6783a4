// The Commerce invoice statuses that decide whether an invoice can be paid (commerce-api.md,
// "Invoice status"): Pending, Sent and PartiallyPaid can; Draft, Paid and Cancelled cannot, and
// the refusal is the documented 409 `invoice_not_payable`. Overdue and Expired need the sandbox
// clock: they run last, on a sandbox merchant of their own, whose clock they move on.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { advanceClock } from '../fixtures/clock.js';
import { clocked, COMMERCE_DOC, source } from '../fixtures/scenario.js';
import { card, newInvoice, optionOf, payInvoice, VISA } from '../fixtures/commerce-payments.js';
import { apiKey } from '../fixtures/keys.js';

const INVOICE_STATES = source(COMMERCE_DOC, 'States and transitions', 'Invoice status');
const PAY = ['createCommerceInvoice', 'listInvoicePaymentMethods', 'payInvoice'];

/** Pays `amount` (all that is due when left out) of an invoice by Visa. */
async function payVisa(ctx: ConformanceContext, invoiceId: number, amount?: number): Promise<HttpResult> {
  return payInvoice(ctx, {
    invoiceId,
    paymentOptionId: await optionOf(ctx, invoiceId, 'CreditCard', 'Visa'),
    card: card(VISA),
    ...(amount === undefined ? {} : { amount }),
  });
}

async function statusOf(ctx: ConformanceContext, invoiceId: number): Promise<string> {
  const res = await call(ctx, 'commerce', 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoiceId}`, apiKey: apiKey(ctx) });
  expectStatus(res, 200, 'read the invoice');
  return res.json.status;
}

function assertPaid(res: HttpResult, what: string): void {
  expectStatus(res, 200, what);
  assert.equal(res.json.paymentStatusId, 'Success', `${what}: paymentStatusId`);
}

const state = (id: string, title: string, requires: string[], run: (ctx: ConformanceContext) => Promise<void>): Scenario => ({
  id,
  title,
  source: INVOICE_STATES,
  requires: [...PAY, ...requires],
  serverOnly: true,
  run,
});
const onTheClock = (id: string, title: string, run: (ctx: ConformanceContext) => Promise<void>): Scenario =>
  clocked(id, title, INVOICE_STATES, [...PAY, 'getCommerceInvoice'], { run });

const HOUR = 3600;

/** A new invoice due in `dueHours` and valid for `validHours`, counted from the sandbox clock's now (it may be ahead of real time). */
async function timedInvoice(ctx: ConformanceContext, dueHours: number, validHours: number): Promise<{ id: number; identifier: string }> {
  const now = Date.parse((await advanceClock(ctx, 1)).now);
  const at = (hours: number) => new Date(now + hours * HOUR * 1000).toISOString();
  return newInvoice(ctx, { paymentDueDate: at(dueHours), validTo: at(validHours) });
}

export const invoiceStateScenarios: Scenario[] = [
  state('commerce.invoice-states.draft-cannot-pay', '`Draft` (not finalized): cannot be paid', ['getCommerceInvoice'], async (ctx) => {
    const invoice = await newInvoice(ctx, { isDraft: true });
    assert.equal(await statusOf(ctx, invoice.id), 'Draft');
    expectError(await payVisa(ctx, invoice.id), 409, 'conflict', 'invoice_not_payable');
    assert.equal(await statusOf(ctx, invoice.id), 'Draft', 'a refused payment leaves the draft as it was');
  }),
  state('commerce.invoice-states.pending-can-pay', '`Pending` (created, awaiting payment): can be paid', ['getCommerceInvoice'], async (ctx) => {
    const invoice = await newInvoice(ctx);
    assert.equal(await statusOf(ctx, invoice.id), 'Pending');
    assertPaid(await payVisa(ctx, invoice.id), 'pay a Pending invoice');
    assert.equal(await statusOf(ctx, invoice.id), 'Paid');
  }),
  state('commerce.invoice-states.sent-can-pay', '`Sent` (sent to the customer): can be paid', ['sendCommerceInvoice', 'getCommerceInvoice'], async (ctx) => {
    const invoice = await newInvoice(ctx);
    expectStatus(
      await call(ctx, 'commerce', 'sendCommerceInvoice', { method: 'POST', path: `/v1/invoice/${invoice.id}/send`, apiKey: apiKey(ctx) }),
      200,
      'send the invoice',
    );
    assert.equal(await statusOf(ctx, invoice.id), 'Sent');
    assertPaid(await payVisa(ctx, invoice.id), 'pay a Sent invoice');
    assert.equal(await statusOf(ctx, invoice.id), 'Paid');
  }),
  state('commerce.invoice-states.partially-paid-can-pay', '`PartiallyPaid` (some amount received): can be paid', ['getCommerceInvoice'], async (ctx) => {
    const invoice = await newInvoice(ctx); // 85.00
    assertPaid(await payVisa(ctx, invoice.id, 35), 'pay 35.00 of 85.00');
    assert.equal(await statusOf(ctx, invoice.id), 'PartiallyPaid');
    const rest = await payVisa(ctx, invoice.id);
    assertPaid(rest, 'pay the rest of a PartiallyPaid invoice');
    assert.equal(rest.json.amountPaid, 50, 'the payment of the rest is what was still due');
    assert.equal(await statusOf(ctx, invoice.id), 'Paid');
  }),
  state('commerce.invoice-states.paid-cannot-pay', '`Paid` (fully paid): cannot be paid again', ['getCommerceInvoice'], async (ctx) => {
    const invoice = await newInvoice(ctx);
    assertPaid(await payVisa(ctx, invoice.id), 'pay the invoice');
    expectError(await payVisa(ctx, invoice.id), 409, 'conflict', 'invoice_not_payable');
    assert.equal(await statusOf(ctx, invoice.id), 'Paid');
  }),
  state(
    'commerce.invoice-states.cancelled-cannot-pay',
    '`Cancelled` (cancelled by the merchant): cannot be paid',
    ['voidInvoice', 'getCommerceInvoice'],
    async (ctx) => {
      const invoice = await newInvoice(ctx);
      expectStatus(
        await call(ctx, 'checkout', 'voidInvoice', { method: 'POST', path: `/v1/invoices/${invoice.id}/void`, key: ctx.options.secretKey }),
        200,
        'cancel (void) the invoice',
      );
      assert.equal(await statusOf(ctx, invoice.id), 'Cancelled');
      expectError(await payVisa(ctx, invoice.id), 409, 'conflict', 'invoice_not_payable');
    },
  ),
  onTheClock('commerce.invoice-states.overdue-can-pay', '`Overdue` (past due date): can be paid', async (ctx) => {
    const invoice = await timedInvoice(ctx, 1, 48);
    await advanceClock(ctx, 2 * HOUR);
    assert.equal(await statusOf(ctx, invoice.id), 'Overdue', 'past its due date, within its validity');
    assertPaid(await payVisa(ctx, invoice.id), 'pay an Overdue invoice');
    assert.equal(await statusOf(ctx, invoice.id), 'Paid');
  }),
  onTheClock('commerce.invoice-states.expired-cannot-pay', '`Expired` (past its validity period): cannot be paid', async (ctx) => {
    const invoice = await timedInvoice(ctx, 1, 2);
    await advanceClock(ctx, 3 * HOUR);
    assert.equal(await statusOf(ctx, invoice.id), 'Expired', 'past its validTo');
    expectError(await payVisa(ctx, invoice.id), 409, 'conflict', 'invoice_not_payable');
    assert.equal(await statusOf(ctx, invoice.id), 'Expired', 'a refused payment leaves the invoice as it was');
  }),
];
