// The events an invoice sends: paid, a payment failed, past due, sent, voided, refunded. Each check
// makes its own invoice of 25.00 USD, pays it (or not) through a checkout session with its
// `invoiceId`, and reads what was delivered about it from a watch's delivery log.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { withWatch } from '../fixtures/events.js';
import { expectStatus } from '../fixtures/http.js';
import { newInvoice } from '../fixtures/invoices.js';
import { emailFor, secretKey } from '../fixtures/keys.js';
import { PAY_CARD, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { EVENT_TYPES } from '../fixtures/sections.js';
import { confirmWith, newSession, payByCard, tokenizeOn } from '../fixtures/sessions.js';
import { aboutInvoice, invoiceAction, settledTypes, waitForObjects } from '../fixtures/tied.js';

/** A session paying the whole invoice (amount and currency come from it). */
const invoiceSession = (ctx: ConformanceContext, invoice: { id: number }) => newSession(ctx, { invoiceId: invoice.id, amount: undefined, currency: undefined });

/** Pays the invoice by card through a session; answers the payment id. */
const payInvoice = async (ctx: ConformanceContext, invoice: { id: number }): Promise<number> =>
  (await payByCard(ctx, await invoiceSession(ctx, invoice))).paymentResult.id;

export const tiedInvoices: Scenario[] = [
  scenario(
    'webhooks.events.invoice-paid',
    '`invoice.paid` is sent when an invoice is paid in full',
    EVENT_TYPES,
    [...WATCH, 'createInvoice', ...PAY_CARD],
    async (ctx) => {
      await withWatch(ctx, ['invoice.*'], async (w) => {
        const invoice = await newInvoice(ctx);
        await payInvoice(ctx, invoice);
        const [paid] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.paid'], 'the invoice paid');
        assert.deepEqual([paid.status, paid.total, paid.amountPaid, paid.amountDue], ['Paid', 25, 25, 0], 'paid in full');
        assert.equal(paid.identifier, invoice.identifier);
      });
    },
  ),
  scenario(
    'webhooks.events.invoice-payment-failed',
    '`invoice.payment_failed` is sent when a payment against an invoice fails',
    EVENT_TYPES,
    [...WATCH, 'createInvoice', ...PAY_CARD],
    async (ctx) => {
      await withWatch(ctx, ['invoice.*'], async (w) => {
        const invoice = await newInvoice(ctx);
        const s = await invoiceSession(ctx, invoice);
        expectStatus(await confirmWith(ctx, s, await tokenizeOn(ctx, s, '4000000000009995')), 400, 'a declined card');
        const [failed] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.payment_failed'], 'the declined payment');
        assert.equal(failed.amountPaid, 0);
        assert.equal(failed.amountDue, 25, 'it is still owed');
        assert.deepEqual(await settledTypes(ctx, w, aboutInvoice(invoice.id)), ['invoice.payment_failed'], 'not paid: no invoice.paid');
      });
    },
  ),
  clocked(
    'webhooks.events.invoice-past-due',
    '`invoice.past_due` is sent when an invoice passes its due date unpaid',
    EVENT_TYPES,
    [...WATCH, 'createInvoice'],
    {
      async run(ctx) {
        await withWatch(ctx, ['invoice.*'], async (w) => {
          const { now } = await advanceClock(ctx, 1);
          const dueDate = new Date(Date.parse(now) + 86_400_000).toISOString();
          const invoice = await newInvoice(ctx, 'USD', secretKey(ctx), { dueDate });
          await advanceClock(ctx, secondsUntil(dueDate, now) - 60);
          assert.deepEqual(await settledTypes(ctx, w, aboutInvoice(invoice.id)), [], 'a minute before its due date, nothing');
          await advanceClock(ctx, 120);
          const [pastDue] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.past_due'], 'the due date passed');
          assert.equal(pastDue.status, 'Overdue');
          assert.equal(Date.parse(pastDue.dueDate), Date.parse(dueDate));
          assert.equal(pastDue.amountDue, 25);
        });
      },
    },
  ),
  scenario(
    'webhooks.events.invoice-sent',
    '`invoice.sent` is sent when an invoice is emailed to its customer',
    EVENT_TYPES,
    [...WATCH, 'createInvoice', 'sendInvoice'],
    async (ctx) => {
      await withWatch(ctx, ['invoice.*'], async (w) => {
        const invoice = await newInvoice(ctx);
        assert.equal((await invoiceAction(ctx, invoice.id, 'send')).status, 'sent');
        const [sent] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.sent'], 'the invoice emailed');
        assert.equal(sent.status, 'Sent');
        assert.equal(sent.customerEmail, emailFor(ctx, 'invoice'), "it names the customer's email it went to");
      });
    },
  ),
  scenario(
    'webhooks.events.invoice-voided',
    '`invoice.voided` is sent when an unpaid invoice is voided',
    EVENT_TYPES,
    [...WATCH, 'createInvoice', 'voidInvoice'],
    async (ctx) => {
      await withWatch(ctx, ['invoice.*'], async (w) => {
        const invoice = await newInvoice(ctx);
        assert.equal((await invoiceAction(ctx, invoice.id, 'void')).status, 'cancelled');
        const [voided] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.voided'], 'the invoice voided');
        assert.equal(voided.status, 'Cancelled', 'a voided invoice reads Cancelled');
        assert.equal(voided.amountPaid, 0, 'it was unpaid');
      });
    },
  ),
  scenario(
    'webhooks.events.invoice-refunded',
    '`invoice.refunded` is sent when a payment on an invoice is refunded',
    EVENT_TYPES,
    [...WATCH, 'createInvoice', ...PAY_CARD, 'refundInvoice'],
    async (ctx) => {
      await withWatch(ctx, ['invoice.*'], async (w) => {
        const invoice = await newInvoice(ctx);
        await payInvoice(ctx, invoice);
        await invoiceAction(ctx, invoice.id, 'refund', { amount: 10 });
        const [refunded] = await waitForObjects(ctx, w, aboutInvoice(invoice.id), ['invoice.refunded'], 'the refund');
        assert.equal(refunded.amountRefunded, 10);
        assert.equal(refunded.amountPaid, 25, 'what was paid stays');
      });
    },
  ),
];
