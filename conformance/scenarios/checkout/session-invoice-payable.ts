// Creation rule 6, sub-rules 6d to 6g: which invoices a session can pay, the open session returned again,
// the invoice left unchanged when a session expires or is cancelled, and the completed event.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { apiKey, secretKey } from '../fixtures/keys.js';
import { getById, newInvoice as newCommerceInvoice } from '../fixtures/commerce-invoices.js';
import { waitForEvents } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { CANCEL, PAY_CARD, SESSION, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { RULE_6 } from '../fixtures/sections.js';
import { cancelSession, newSession, payByCard, postSession, retrieveSession } from '../fixtures/sessions.js';
import { newInvoice, retrieveInvoice } from '../fixtures/invoices.js';

export const invoicePayable: Scenario[] = [
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
  scenario(
    'checkout.sessions.rule-6d-rejected-not-payable',
    'A rejected invoice fails with `invoice_not_payable`',
    RULE_6,
    ['createInvoice', 'retrieveInvoice', 'rejectTestInvoice', SESSION],
    async (ctx) => {
      // The source document names rejected invoices but no way to reject one: the payer's rejection is
      // played by Till's test helper (rejectTestInvoice).
      const invoice = await newInvoice(ctx);
      const rejected = await call(ctx, 'checkout', 'rejectTestInvoice', {
        method: 'POST',
        path: `/v1/test-helpers/invoices/${invoice.id}/reject`,
        key: secretKey(ctx),
      });
      expectStatus(rejected, 200, 'reject the invoice as its payer (POST /v1/test-helpers/invoices/{id}/reject)');
      assert.equal(rejected.json.status, 'rejected', 'the answer is the invoice, rejected');
      assert.equal((await retrieveInvoice(ctx, invoice.id)).status, 'rejected', 'the invoice reads rejected');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  ),
  clocked(
    'checkout.sessions.rule-6d-expired-not-payable',
    'An expired invoice fails with `invoice_not_payable`',
    RULE_6,
    ['createCommerceInvoice', 'getCommerceInvoice', SESSION],
    {
      async run(ctx) {
        // validTo on the sandbox merchant's clock, which earlier scenarios may have moved on.
        const { now } = await advanceClock(ctx, 1);
        const invoice = await newCommerceInvoice(ctx, 'expiring', { validTo: new Date(Date.parse(now) + 3_600_000).toISOString() });
        await advanceClock(ctx, 3_600 + 60);
        const expired = await getById(ctx, invoice.id);
        expectStatus(expired, 200, 'read the invoice');
        assert.equal(expired.json.status, 'Expired', 'past its validTo the invoice is expired');
        expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
      },
    },
  ),
  scenario(
    'checkout.sessions.rule-6d-draft-not-payable',
    'A draft invoice fails with `invoice_not_payable`',
    RULE_6,
    ['createCommerceInvoice', 'sendCommerceInvoice', SESSION],
    async (ctx) => {
      const draft = await newCommerceInvoice(ctx, 'draft', { isDraft: true });
      assert.equal(draft.status, 'Draft', 'isDraft makes a draft');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: draft.id }), 409, 'conflict', 'invoice_not_payable');
      const sent = await call(ctx, 'commerce', 'sendCommerceInvoice', { method: 'POST', path: `/v1/invoice/${draft.id}/send`, apiKey: apiKey(ctx), body: {} });
      expectStatus(sent, 200, 'send (finalize) the draft');
      expectStatus(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: draft.id }), 201, 'once finalized the invoice can be paid');
    },
  ),
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
  scenario(
    'checkout.sessions.rule-6g-completed-carries-invoice',
    '`checkout.session.completed` of a session paying an invoice carries `invoiceId` and `invoiceReference`',
    RULE_6,
    ['createInvoice', ...PAY_CARD, ...WATCH],
    async (ctx) =>
      withWatch(ctx, ['checkout.session.completed'], async (w) => {
        const invoice = await newInvoice(ctx);
        const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference });
        await payByCard(ctx, session);
        const [event] = await waitForEvents(ctx, w, (e) => e.type === 'checkout.session.completed' && e.data?.object?.id === session.id);
        assert.equal(event.data.object.invoiceId, invoice.id, 'the event carries the invoice id');
        assert.equal(event.data.object.invoiceReference, invoice.reference, 'and its reference');
      }),
  ),
];
