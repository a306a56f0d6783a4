// Card holds (captureMethod `manual`): the hold states, the hold result, and the capture and release
// rules. Their refusals (the named error codes) are in hold-errors.ts.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectStatus } from '../fixtures/http.js';
import { capture, heldPayment, holdOf, release } from '../fixtures/holds.js';
import { retrieveInvoice } from '../fixtures/invoices.js';
import { emailFor, secretKey } from '../fixtures/keys.js';
import { sessionMessages } from '../fixtures/messages.js';
import { HOLD, MESSAGES, RETRIEVE, SESSION } from '../fixtures/operations.js';
import { CHECKOUT_DOC, clocked, pendingBecause, scenario, source } from '../fixtures/scenario.js';
import { CAPTURE_RULES, HOLD_RESULT, HOLD_STATES } from '../fixtures/sections.js';
import { getSessionStatus, newHoldSession, payByCard, refundSession, retrieveSession } from '../fixtures/sessions.js';

const HOLD_FIELDS = [
  'paymentId',
  'referenceNumber',
  'status',
  'authorizedAmount',
  'capturedAmount',
  'currency',
  'authorizationExpiresAt',
  'capturedAt',
  'alreadyDone',
];

/** The invoice a hold session created (retrieval `invoiceId`). */
async function sessionInvoice(ctx: ConformanceContext, sessionId: string): Promise<any> {
  const { invoiceId } = await retrieveSession(ctx, sessionId);
  assert.equal(typeof invoiceId, 'number', `the hold session has its invoice: invoiceId ${JSON.stringify(invoiceId)}`);
  return retrieveInvoice(ctx, invoiceId);
}

export const holds: Scenario[] = [
  scenario(
    'checkout.hold-states.capture-all',
    '`authorized` → capture without amount → `captured` for the whole authorized amount; the invoice is paid and the payment refundable as a card payment',
    HOLD_STATES,
    [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice', 'refundCheckoutSession'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx, { amount: 40 });
      const res = await capture(ctx, paymentId);
      expectStatus(res, 200, 'capture without amount');
      assert.equal(res.json.status, 'captured');
      assert.equal(res.json.capturedAmount, 40, 'the whole authorized amount is captured');
      assert.equal(res.json.authorizedAmount, 40);
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'captured', 'polling shows the hold captured');
      const invoice = await sessionInvoice(ctx, s.id);
      assert.equal(invoice.status, 'paid', 'the capture pays the invoice');
      assert.equal(invoice.amountPaid, 40, 'for the captured amount');
      const read = await retrieveSession(ctx, s.id);
      assert.equal(read.refund.refundable, true, `the captured payment is refundable: ${JSON.stringify(read.refund)}`);
      const partial = await refundSession(ctx, s, { amount: 5, reason: 'conformance: a card payment refunds in part' });
      expectStatus(partial, 200, 'refund part of the captured payment');
      assert.equal(partial.json.status, 'partially_refunded', 'refunded in part, as a card payment');
      assert.equal(partial.json.amountRefundable, 35);
    },
  ),
  scenario(
    'checkout.hold-states.partial-capture-lowers-invoice',
    '`authorized` → partial capture → `captured`; a session-created invoice is lowered to the captured amount, the rest shown as discount',
    HOLD_STATES,
    [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx, { amount: 80 });
      const before = await sessionInvoice(ctx, s.id);
      assert.equal(before.total, 80, 'before the capture the invoice is for the authorized amount');
      const res = await capture(ctx, paymentId, { amount: 50.25, reason: 'one item out of stock' });
      expectStatus(res, 200, 'a partial capture');
      assert.equal(res.json.status, 'captured');
      assert.equal(res.json.capturedAmount, 50.25);
      assert.equal(res.json.authorizedAmount, 80, 'the authorized amount is still shown');
      const after = await retrieveInvoice(ctx, before.id);
      assert.equal(after.total, 50.25, 'the invoice is lowered to the captured amount');
      assert.equal(after.discount, 29.75, 'the uncaptured rest shows as discount');
      assert.equal(after.status, 'paid', 'and it is paid');
      assert.equal(after.amountDue, 0, 'nothing is left due');
    },
  ),
  scenario(
    'checkout.hold-states.release',
    '`authorized` → release → `released`; nothing charged and the session-created invoice is cancelled',
    HOLD_STATES,
    [...HOLD, 'releasePayment', RETRIEVE, 'retrieveInvoice'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx);
      const res = await release(ctx, paymentId);
      expectStatus(res, 200, 'release');
      assert.equal(res.json.status, 'released');
      assert.equal(res.json.capturedAmount, 0, 'nothing is charged');
      assert.equal(res.json.capturedAt, null, 'nothing was captured');
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'released', 'polling shows the hold released');
      const invoice = await sessionInvoice(ctx, s.id);
      assert.equal(invoice.status, 'cancelled', 'the session-created invoice is cancelled');
      assert.equal(invoice.amountPaid, 0, 'nothing was paid on it');
      assert.equal((await retrieveSession(ctx, s.id)).refund.refundable, false, 'a released hold has nothing to refund');
    },
  ),
  clocked('checkout.hold-states.lapse-after-7-days', '`authorized` → 7 days pass uncaptured → `expired` (released)', HOLD_STATES, [...HOLD], {
    async run(ctx) {
      const s = await newHoldSession(ctx);
      await payByCard(ctx, s);
      const open = await getSessionStatus(ctx, s.id);
      expectStatus(open, 200, 'poll the hold session');
      assert.equal(open.json.holdStatus, 'authorized', 'the hold is open');
      const lapsesIn = secondsUntil(open.json.authorizationExpiresAt, (await advanceClock(ctx, 1)).now);
      assert.ok(lapsesIn > 6 * 86_400 && lapsesIn <= 7 * 86_400, `the hold lasts 7 days (lapses in ${lapsesIn} s)`);
      await advanceClock(ctx, lapsesIn - 60);
      assert.equal((await getSessionStatus(ctx, s.id)).json.holdStatus, 'authorized', 'a minute before it lapses the hold is still open');
      await advanceClock(ctx, 61);
      const lapsed = await getSessionStatus(ctx, s.id);
      assert.equal(lapsed.json.holdStatus, 'expired', 'after 7 days uncaptured the hold is expired');
      assert.ok(lapsed.json.authorizationExpiresAt == null, 'authorizationExpiresAt only while the hold is open');
    },
  }),
  scenario(
    'checkout.hold-states.authorization-expires-in-7-days',
    'A hold lasts 7 days unless the payment option sets its own: `authorizationExpiresAt` is 7 days after authorization',
    source(CHECKOUT_DOC, 'Limits'),
    [...HOLD],
    async (ctx) => {
      const { s } = await heldPayment(ctx);
      const hold = await holdOf(ctx, s.id);
      assert.equal(hold.holdStatus, 'authorized');
      // Authorized right after the session was created (the target's clock): within a minute of it.
      const lasts = Date.parse(hold.authorizationExpiresAt) - Date.parse(s.createdAt);
      assert.ok(
        lasts >= 7 * 86_400_000 && lasts <= 7 * 86_400_000 + 60_000,
        `authorizationExpiresAt must be 7 days after authorization: ${s.createdAt} → ${hold.authorizationExpiresAt}`,
      );
    },
  ),
  scenario(
    'checkout.holds.hold-result-fields',
    'Capture and release answer paymentId, referenceNumber, status, authorizedAmount, capturedAmount, currency, authorizationExpiresAt (null when no longer open), capturedAt and alreadyDone',
    HOLD_RESULT,
    [...HOLD, 'capturePayment', 'releasePayment'],
    async (ctx) => {
      const captured = await heldPayment(ctx, { amount: 30, currency: 'EUR' });
      const c = await capture(ctx, captured.paymentId, { amount: 12 });
      expectStatus(c, 200, 'capture');
      for (const field of HOLD_FIELDS) assert.ok(field in c.json, `the capture answer carries ${field}`);
      assert.equal(c.json.paymentId, captured.paymentId);
      assert.equal(typeof c.json.referenceNumber, 'string', 'referenceNumber is the payment reference');
      assert.deepEqual([c.json.status, c.json.authorizedAmount, c.json.capturedAmount, c.json.currency], ['captured', 30, 12, 'EUR']);
      assert.equal(c.json.authorizationExpiresAt, null, 'a captured hold is no longer open');
      assert.ok(Number.isFinite(Date.parse(c.json.capturedAt)), `capturedAt is a timestamp: ${c.json.capturedAt}`);
      assert.equal(c.json.alreadyDone, false);
      const released = await heldPayment(ctx, { amount: 30, currency: 'EUR' });
      const r = await release(ctx, released.paymentId);
      expectStatus(r, 200, 'release');
      for (const field of HOLD_FIELDS) assert.ok(field in r.json, `the release answer carries ${field}`);
      assert.deepEqual([r.json.paymentId, r.json.status, r.json.authorizedAmount, r.json.currency], [released.paymentId, 'released', 30, 'EUR']);
      assert.equal(r.json.authorizationExpiresAt, null, 'a released hold is no longer open');
      assert.equal(r.json.capturedAt, null);
      assert.equal(r.json.alreadyDone, false);
    },
  ),
  scenario('checkout.holds.release-no-amount', 'Releasing needs no amount (no body)', CAPTURE_RULES, [...HOLD, 'releasePayment'], async (ctx) => {
    const { s, paymentId } = await heldPayment(ctx, { amount: 25 });
    const res = await release(ctx, paymentId);
    expectStatus(res, 200, 'release with no body');
    assert.equal(res.json.status, 'released');
    assert.equal(res.json.authorizedAmount, 25, 'the whole authorization is let go');
    assert.equal((await holdOf(ctx, s.id)).holdStatus, 'released');
  }),
  scenario(
    'checkout.holds.repeat-capture-already-done',
    'Repeating a capture that went through returns `alreadyDone` true',
    CAPTURE_RULES,
    [...HOLD, 'capturePayment'],
    async (ctx) => {
      const { paymentId } = await heldPayment(ctx, { amount: 40 });
      const first = await capture(ctx, paymentId, { amount: 30 });
      expectStatus(first, 200, 'capture');
      assert.equal(first.json.alreadyDone, false, 'the first capture is done now');
      const again = await capture(ctx, paymentId, { amount: 30 });
      expectStatus(again, 200, 'the same capture again');
      assert.equal(again.json.alreadyDone, true, 'the repeat says it was already done');
      assert.deepEqual({ ...again.json, alreadyDone: false }, first.json, 'and answers the same hold, unchanged');
    },
  ),
  scenario(
    'checkout.holds.repeat-release-already-done',
    'Repeating a release that went through returns `alreadyDone` true',
    CAPTURE_RULES,
    [...HOLD, 'releasePayment'],
    async (ctx) => {
      const { paymentId } = await heldPayment(ctx);
      const first = await release(ctx, paymentId);
      expectStatus(first, 200, 'release');
      assert.equal(first.json.alreadyDone, false, 'the first release is done now');
      const again = await release(ctx, paymentId);
      expectStatus(again, 200, 'the same release again');
      assert.equal(again.json.alreadyDone, true, 'the repeat says it was already done');
      assert.deepEqual({ ...again.json, alreadyDone: false }, first.json, 'and answers the same hold, unchanged');
    },
  ),
  {
    id: 'checkout.holds.only-hold-capable-options-offered',
    title: 'Only card options able to hold a card are offered on a hold session (retrieval `allowedPaymentMethods`)',
    source: CAPTURE_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const offered: unknown = (await retrieveSession(ctx, s.id)).allowedPaymentMethods;
      if (offered === null) pendingBecause('the target answers allowedPaymentMethods null for the hold session, so what is offered cannot be seen');
      assert.ok(Array.isArray(offered), 'allowedPaymentMethods is a list');
      const methods = offered as string[];
      assert.ok(methods.length > 0, 'a hold session offers at least one card option');
      assert.deepEqual(
        methods.filter((m) => m.startsWith('wallet:')),
        [],
        `a hold session must offer no wallet option, got ${JSON.stringify(methods)}`,
      );
      assert.ok(methods.includes('card'), `a hold session offers the card form, got ${JSON.stringify(methods)}`);
    },
  },
  scenario(
    'checkout.holds.nothing-paid-until-capture',
    'Nothing is paid, settled or receipted until capture: no receipt message, invoice unpaid, settlement refused',
    CAPTURE_RULES,
    [...HOLD, MESSAGES, 'settleTestPayment', 'retrieveInvoice', 'capturePayment'],
    async (ctx) => {
      const email = emailFor(ctx, 'hold-receipt');
      const { s, paymentId } = await heldPayment(ctx, { customerEmail: email, sendReceipt: true });
      const settle = () =>
        call(ctx, 'checkout', 'settleTestPayment', { method: 'POST', path: `/v1/test-helpers/payments/${paymentId}/settle`, key: secretKey(ctx) });
      assert.deepEqual(await sessionMessages(ctx, s.id, 'receipt'), [], 'no receipt while the card is only held');
      const held = await sessionInvoice(ctx, s.id);
      assert.notEqual(held.status, 'paid', 'the invoice is not paid while the card is only held');
      assert.equal(held.amountPaid, 0, 'nothing is paid on it');
      expectStatus(await settle(), 409, 'settling an uncaptured hold is refused');
      expectStatus(await capture(ctx, paymentId), 200, 'capture');
      const receipts = await sessionMessages(ctx, s.id, 'receipt');
      assert.equal(receipts.length, 1, 'the capture sends the receipt');
      assert.equal(receipts[0].to, email);
      assert.equal((await retrieveInvoice(ctx, held.id)).status, 'paid', 'the capture pays the invoice');
      expectStatus(await settle(), 200, 'a captured hold settles');
    },
  ),
];
